//! Finds the installed libprealloc through pkg-config and compiles
//! `layout.c`, the C side of the layout test (src/layout_test.rs): the
//! compiler reading the installed header is the reference, not a copy of it.

fn main() {
    let lib = pkg_config::Config::new()
        .atleast_version("0.3")
        .probe("libprealloc")
        .expect("libprealloc >= 0.3 not found through pkg-config (set PKG_CONFIG_PATH)");
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
