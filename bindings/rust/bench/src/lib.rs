//! Nothing: the benchmark is benches/segment.rs.
