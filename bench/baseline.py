"""A second build of the runtime in the same process, for benchmarks that
time the build under test beside an earlier one on the same inputs."""
import importlib.util
import os

import tilec


def load_baseline(lib):
    """A second instance of the tilec package bound to the library `lib`
    (a distinct file, so the two builds load side by side)."""
    saved = os.environ.get("TILEC_RUNTIME_LIB")
    os.environ["TILEC_RUNTIME_LIB"] = lib
    try:
        spec = importlib.util.spec_from_file_location("tilec_baseline",
                                                      tilec.__file__)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        if saved is None:
            del os.environ["TILEC_RUNTIME_LIB"]
        else:
            os.environ["TILEC_RUNTIME_LIB"] = saved
    return module
