//! A stand-in local runtime: a data dir whose `orbit-local` layout looks
//! set up (the model file and both step markers present) with a script of
//! the caller's as `llama-server`, so the server manager and the CLI's
//! local provider run without building llama.cpp or fetching the model.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use orbit_local::LocalPaths;

/// Lays out a set-up runtime under `data_dir` whose `llama-server` is the
/// executable `server_script` (a `#!` script); returns its paths. Panics
/// with the file it could not write (a test set-up failure).
pub fn stub_local_runtime(data_dir: &Path, server_script: &str) -> LocalPaths {
    let paths = LocalPaths::in_data_dir(data_dir);
    let bin = paths.server_bin();
    let files = [
        (bin.clone(), server_script.as_bytes()),
        (paths.model_file(), b"GGUF".as_slice()),
        (paths.marker("model"), b"ok".as_slice()),
        (paths.marker("llama-server"), b"ok".as_slice()),
    ];
    for (path, content) in files {
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, content));
        if let Err(e) = written {
            panic!("stub local runtime: cannot write {}: {e}", path.display());
        }
    }
    if let Err(e) = std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)) {
        panic!("stub local runtime: cannot chmod {}: {e}", bin.display());
    }
    paths
}

/// A stand-in `llama-server` for a session that sends no prompt: it only
/// answers the health probe (for [`stub_local_runtime`]).
pub const HEALTHY_LLAMA_SERVER: &str = r#"#!/usr/bin/env python3
import http.server, sys
argv = sys.argv[1:]
port = int(argv[argv.index("--port") + 1])
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = b'{"status":"ok"}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
"#;
