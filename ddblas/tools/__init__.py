"""The tooling of ddblas, apart from the library: the command line (`python -m ddblas`), the
benchmark suites and their reports, the adapters of the other libraries, the accuracy report,
the FMA study, the kernel checks and the demo.

The library (`ddblas` and its modules) imports nothing from here; the tools use the library
through its public names, `ddblas.accuracy`, `ddblas.eft` and `ddblas.introspect` (the timing
and introspection API for benchmarks and tools).
"""
