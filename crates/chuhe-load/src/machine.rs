//! What the load test reads of the machine: the server's memory and the load average (Linux
//! `/proc`).

/// The resident memory of process `pid` in KiB (`VmRSS` of `/proc/PID/status`); `None` when
/// there is no such process (or no `/proc`).
pub(crate) fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The one-minute load average of this machine as `/proc/loadavg` writes it, or `?`.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}
