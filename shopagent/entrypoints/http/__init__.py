"""HTTP entrypoints: Starlette apps built by factories from explicit route lists."""
