# Engine, host tests, site checker, host benchmarks (owned by the engine work).
