//! The kfam proc-macro entry (compile-time manifest rejection).
