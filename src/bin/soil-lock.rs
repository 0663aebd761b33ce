/// Audits allocate many small, short-lived values across threads; mimalloc handles that
/// pattern markedly better than the system allocator (see docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    lockgraph::soil_lock::main()
}
