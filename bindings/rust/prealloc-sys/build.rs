//! Finds the installed libprealloc through pkg-config and links it.  With
//! the `layout-test` feature (the crate's own tests), also compiles
//! `layout.c`, the C side of the layout test (src/layout_test.rs): the
//! compiler reading the installed header is the reference, not a copy of it.

fn main() {
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    // docs.rs builds the documentation without the C library: nothing to link.
    if std::env::var_os("DOCS_RS").is_some() {
        return;
    }
    let lib = pkg_config::Config::new()
        .atleast_version("0.4")
        .probe("libprealloc")
        .expect("libprealloc >= 0.4 not found through pkg-config (install libprealloc-dev, or set PKG_CONFIG_PATH)");
    #[cfg(feature = "layout-test")]
    layout_test(&lib);
    #[cfg(not(feature = "layout-test"))]
    let _ = lib;
}

#[cfg(feature = "layout-test")]
fn layout_test(lib: &pkg_config::Library) {
    let mut build = cc::Build::new();
    build
        .file("layout.c")
        .warnings(true)
        .warnings_into_errors(true);
    for dir in &lib.include_paths {
        build.include(dir);
    }
    build.compile("prealloc_sys_layout");
    println!("cargo:rerun-if-changed=layout.c");
}
