//! `podhost completions bash|zsh|fish`: a shell completion script, from the clap definition.

use clap::Args;
use clap_complete::Shell;

use crate::context::Env;

/// Completion options.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh or fish (also elvish, powershell).
    pub shell: Shell,
}

impl super::Run for CompletionsArgs {
    async fn run(self, env: &Env) -> anyhow::Result<()> {
        // No store is opened: completions work anywhere.
        let mut script = Vec::new();
        clap_complete::generate(self.shell, &mut env.definition(), "podhost", &mut script);
        let script = String::from_utf8_lossy(&script).into_owned();
        env.out()
            .print(serde_json::Value::String(script.clone()), || {
                script.trim_end().to_string()
            })?;
        Ok(())
    }
}
