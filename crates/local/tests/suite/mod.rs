//! One module per area of orbit-local.

mod server;
mod setup;

use std::path::Path;

use orbit_local::LocalPaths;

/// A stand-in for llama-server: records its argv and OMP_WAIT_POLICY in
/// `fake-argv.json`, fails at once (exit 3) when the data dir holds
/// `fake-exit`, else answers `GET /health` on `--port` after 0.3 s, until
/// killed.
const FAKE_SERVER: &str = orbit_test_support::llama_server_script!(
    r#"
with open(os.path.join(root, "fake-argv.json"), "w") as f:
    json.dump({"argv": argv, "omp": os.environ.get("OMP_WAIT_POLICY")}, f)
if os.path.exists(os.path.join(root, "fake-exit")):
    print("error: failed to load model", flush=True)
    sys.exit(3)
time.sleep(0.3)
"#,
    ""
);

/// A data dir whose local runtime looks set up, with the fake server.
fn fake_runtime(data_dir: &Path) -> LocalPaths {
    orbit_test_support::stub_local_runtime(data_dir, FAKE_SERVER)
}
