//! `podhost store`: the store's format and the servers running on it, and raising the format
//! once every server reads the new one (an upgrade one server at a time).

use clap::Subcommand;
use podhost_core::{StoreStatus, StoreUpgrade, store_format::FORMATS};

use crate::context::Env;

/// Store commands.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// The store's format, this podhost's, and the servers on the store (their release and
    /// the newest format each reads; live when renewed within 15 s).
    Status,
    /// Raises the store's format (to this podhost's newest) once every live server reads it;
    /// refuses, naming them, while a server of an older release runs on the store. Then makes
    /// what the format brings for what was there before (format 2: every podcast's fediverse
    /// actor key); run again, it finishes what an interrupted upgrade left.
    Upgrade {
        /// The format to raise it to (default: the newest this podhost reads).
        #[arg(long)]
        to: Option<u32>,
    },
}

impl super::Run for StoreCommand {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        let host = env.host()?;
        match self {
            StoreCommand::Status => {
                let status = host.store_status().await?;
                env.out().print(&status, || text(&status))?;
            }
            StoreCommand::Upgrade { to } => {
                let before = host.store_status().await?.format;
                let upgrade = host.upgrade_store(to).await?;
                env.out().print(&upgrade, || upgraded(&upgrade, before))?;
            }
        }
        Ok(())
    }
}

/// What an upgrade did, then the status, as an operator reads them.
fn upgraded(upgrade: &StoreUpgrade, before: u32) -> String {
    let format = upgrade.status.format;
    let mut lines = vec![if before == format {
        format!("the store holds format {format} already")
    } else {
        format!("raised the store from format {before} to {format}")
    }];
    match upgrade.actors_made {
        0 => {}
        1 => lines.push("1 podcast made before is a fediverse actor now (its key made)".into()),
        n => lines.push(format!(
            "{n} podcasts made before are fediverse actors now (their keys made)"
        )),
    }
    lines.push(text(&upgrade.status));
    lines.join("\n")
}

/// The status as an operator reads it.
fn text(status: &StoreStatus) -> String {
    let mut lines = Vec::new();
    let brings = FORMATS
        .iter()
        .find(|f| f.number == status.format)
        .map(|f| format!(" ({}: {})", f.release, f.brings))
        .unwrap_or_default();
    lines.push(format!("format   {}{brings}", status.format));
    lines.push(format!(
        "podhost  {} reads formats up to {}",
        status.release, status.reads
    ));
    let live: Vec<_> = status.servers.iter().filter(|s| s.live).collect();
    lines.push(format!("servers  {} live", live.len()));
    for server in &status.servers {
        let state = if server.live { "live" } else { "stopped" };
        lines.push(format!("  {state:<8} {}", server.record.describe()));
    }
    lines.join("\n")
}
