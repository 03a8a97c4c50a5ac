//! One module per area of orbit-local.

mod server;
mod setup;

use std::path::Path;

use orbit_local::LocalPaths;

/// A stand-in for llama-server: records its argv and OMP_WAIT_POLICY, then
/// answers `GET /health` on `--port` with `{"status":"ok"}` after
/// `FAKE_DELAY_MS`, until killed. `FAKE_EXIT=1` makes it fail at once.
const FAKE_SERVER: &str = r#"#!/usr/bin/env python3
import http.server, json, os, sys, time
argv = sys.argv[1:]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(root, "fake-argv.json"), "w") as f:
    json.dump({"argv": argv, "omp": os.environ.get("OMP_WAIT_POLICY")}, f)
if os.path.exists(os.path.join(root, "fake-exit")):
    print("error: failed to load model", flush=True)
    sys.exit(3)
time.sleep(0.3)
port = int(argv[argv.index("--port") + 1])
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"status":"ok"}' if self.path == "/health" else b'{}'
        self.send_response(200 if self.path == "/health" else 404)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", port), H).serve_forever()
"#;

/// A data dir whose local runtime looks set up, with the fake server.
fn fake_runtime(data_dir: &Path) -> LocalPaths {
    orbit_test_support::stub_local_runtime(data_dir, FAKE_SERVER)
}
