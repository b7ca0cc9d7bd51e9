//! Finds the installed libprealloc through pkg-config and links it.  With
//! the `layout-test` feature (the crate's own tests), also generates the
//! layout test from the installed headers: `bindings/header-api.py` lists
//! every struct, field, enum value and constant of the header the compiler
//! reads, as a C table (compiled here) and as the same table from this
//! crate's declarations (src/layout_test.rs includes it).  A field or value
//! the header has and this crate lacks does not compile; one that differs
//! fails the test.  The compiler reading the installed header is the
//! reference, never a copy of it.

fn main() {
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    // docs.rs builds the documentation without the C library: nothing to link.
    if std::env::var_os("DOCS_RS").is_some() {
        return;
    }
    let lib = pkg_config::Config::new()
        .atleast_version("0.5")
        .probe("libprealloc")
        .expect("libprealloc >= 0.5 not found through pkg-config (install libprealloc-dev, or set PKG_CONFIG_PATH)");
    #[cfg(feature = "layout-test")]
    layout_test(&lib);
    #[cfg(not(feature = "layout-test"))]
    let _ = lib;
}

#[cfg(feature = "layout-test")]
fn layout_test(lib: &pkg_config::Library) {
    use std::path::PathBuf;
    use std::process::Command;

    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let script = manifest.join("../../header-api.py");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let cflags: Vec<String> = lib
        .include_paths
        .iter()
        .map(|d| format!("-I{}", d.display()))
        .collect();
    let generate = |mode: &str, file: &str| {
        let output = Command::new("python3")
            .arg(&script)
            .args(["--cflags", &cflags.join(" "), mode])
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
        assert!(
            output.status.success(),
            "{} {mode}: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::write(out.join(file), output.stdout).unwrap();
    };
    generate("--c", "layout.c");
    generate("--rust", "layout_rust.rs");
    let mut build = cc::Build::new();
    build
        .file(out.join("layout.c"))
        .warnings(true)
        .warnings_into_errors(true);
    for dir in &lib.include_paths {
        build.include(dir);
    }
    build.compile("prealloc_sys_layout");
    println!("cargo:rerun-if-changed={}", script.display());
    for dir in &lib.include_paths {
        for h in ["prealloc.h", "prealloc-pool.h", "prealloc-common.h"] {
            println!("cargo:rerun-if-changed={}", dir.join(h).display());
        }
    }
}
