"""The DD core: options, conversions, the DDArray type, elementwise operations and reductions,
and the proven bounds. Imports the engines below it, never the BLAS layer or the tools."""
