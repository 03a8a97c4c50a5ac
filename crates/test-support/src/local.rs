//! A stand-in local runtime: a data dir whose `orbit-local` layout looks
//! set up (the model file and both step markers present) with a script of
//! the caller's as `llama-server`, so the server manager and the CLI's
//! local provider run without building llama.cpp or fetching the model.
//! [`llama_server_script!`](crate::llama_server_script) writes such a
//! script: the part every stand-in shares (the `--port` argument, the
//! health endpoint, the reply helpers) around the test's own lines.

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

/// A stand-in `llama-server` (a python script, `&'static str`) for
/// [`stub_local_runtime`]: an HTTP/1.1 server on the `--port` it is given
/// whose `GET /health` answers `{"status":"ok"}` (any other GET: 404).
///
/// `$startup` (string literal of top-level lines) runs before it listens,
/// with `argv`, `port` and `root` (the runtime's data dir, where a test
/// reads what the stand-in recorded) set and `http.server`, `json`, `os`,
/// `sys` and `time` imported. `$handlers` (string literal) adds methods to
/// the handler class, indented by four spaces (e.g. a `do_POST`); they may
/// call `self.reply(status, content_type, body)` and
/// `self.reply_sse(chunks)` (the whole `text/event-stream` of
/// chat-completion chunks, then `[DONE]`), and `chunk(delta,
/// finish_reason=None)` builds one such chunk.
#[macro_export]
macro_rules! llama_server_script {
    ($startup:literal, $handlers:literal $(,)?) => {
        concat!(
            r#"#!/usr/bin/env python3
import http.server, json, os, sys, time
argv = sys.argv[1:]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
port = int(argv[argv.index("--port") + 1])
def chunk(delta, finish_reason=None):
    return {"id": "c", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
"#,
            $startup,
            r#"
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def reply(self, status, ctype, body):
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def reply_sse(self, chunks):
        body = "".join("data: %s\n\n" % json.dumps(c) for c in chunks) + "data: [DONE]\n\n"
        self.reply(200, "text/event-stream", body.encode())
    def do_GET(self):
        if self.path == "/health":
            self.reply(200, "application/json", b'{"status":"ok"}')
        else:
            self.reply(404, "application/json", b'{}')
    def log_message(self, *a):
        pass
"#,
            $handlers,
            r#"
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
"#
        )
    };
}

/// A stand-in `llama-server` for a session that sends no prompt: it only
/// answers the health probe (for [`stub_local_runtime`]).
pub const HEALTHY_LLAMA_SERVER: &str = crate::llama_server_script!("", "");
