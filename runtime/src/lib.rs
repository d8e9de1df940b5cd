//! kfam runtime: the approved kernel-family tables generated from `manifest/`.
