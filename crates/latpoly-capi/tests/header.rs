//! The checked-in header equals what cbindgen generates from the sources.
//! Regenerate with `LATPOLY_BLESS=1 cargo test -p latpoly-capi --test header`.

use std::path::Path;

#[test]
fn header_is_in_sync() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut out = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generation")
        .write(&mut out);
    let generated = String::from_utf8(out).expect("utf-8 header");
    let path = dir.join("include/latpoly.h");
    if std::env::var("LATPOLY_BLESS").is_ok() {
        std::fs::write(&path, &generated).expect("write header");
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/latpoly.h is out of date: run LATPOLY_BLESS=1 cargo test -p latpoly-capi --test header"
    );
}
