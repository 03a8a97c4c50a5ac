//! Keeps orbit's secrets out of `/proc/<orbit>/environ`: a sandboxed
//! command cannot read orbit's files, but the kernel still shows the
//! environment block of a same-user process. Right after the one read of
//! the environment (`Env::from_process`, whose copy orbit uses from then
//! on), the values of the secret variables are overwritten with NUL bytes
//! in the process's own environment block (through `/proc/self/mem`, no
//! unsafe code). Children started later inherit the variables empty,
//! which is what tools get anyway (`tool_env_hidden`).

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;

/// Overwrites the values of `names` in this process's environment block.
/// Best effort: any failure leaves the block as it was.
pub fn scrub_environment_block(names: &[String]) {
    let _ = try_scrub(names);
}

fn try_scrub(names: &[String]) -> std::io::Result<()> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // Fields after the command name's `)`: field 3 is the first; env_start
    // is field 50.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let Some(env_start) = fields.get(50 - 3).and_then(|f| f.parse::<u64>().ok()) else {
        return Ok(());
    };
    let block = std::fs::read("/proc/self/environ")?;
    let mem = OpenOptions::new().write(true).open("/proc/self/mem")?;
    let mut pos = 0usize;
    for entry in block.split(|&b| b == 0) {
        if let Some(eq) = entry.iter().position(|&b| b == b'=')
            && names.iter().any(|n| n.as_bytes() == &entry[..eq])
        {
            let value_len = entry.len() - eq - 1;
            let at = env_start + (pos + eq + 1) as u64;
            mem.write_all_at(&vec![0u8; value_len], at)?;
        }
        pos += entry.len() + 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn nothing_to_scrub_is_harmless() {
        super::scrub_environment_block(&[]);
        assert!(std::env::var_os("PATH").is_some());
    }
}
