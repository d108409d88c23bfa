//! Workspace-level tests of podhost: crash safety under `kill -9`, several hosts sharing one
//! store, and a store that fails. The crash test's child process is the
//! `podhost-crash-writer` binary of this package.
