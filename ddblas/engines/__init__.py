"""The engines: kernel families built lazily and cached (build), the CPU backend (host C++ via
ctypes), the GPU backend (NVRTC via CuPy) and the device-neutral launch interface (backend).
The lowest layer: imports nothing else from ddblas."""
