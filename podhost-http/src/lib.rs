//! podhost-http: the REST API of podhost over hyper.
//!
//! Not built yet: the REST API issue mounts `podhost_core::PodcastHost` here. This crate
//! is the only one that will know HTTP and the JSON wire shapes.
