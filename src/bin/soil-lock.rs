fn main() -> std::process::ExitCode {
    lockgraph::soil_lock::main()
}
