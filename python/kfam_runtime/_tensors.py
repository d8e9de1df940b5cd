# PyTorch's own annotations are full of `Any`: this module, which works in them, is exempt
# from `--disallow-any-expr` (it passes `mypy --strict`, with torch and without).
# mypy: disallow-any-expr=False
"""Tensors in kfam's terms: a kfam dtype's ``torch.dtype`` and a real tensor's ``TensorArg``.

The ground ``torch.py``, ``_draw.py``, ``_qualify.py`` and ``route.py`` share; ``torch.py``
re-exports it. It is imported through ``torch.py``, which checks the PyTorch release first.
"""

from __future__ import annotations

import torch  # type: ignore[import-not-found, unused-ignore]

from ._call import TensorArg
from .records import Param
from .vocab import _TORCH_DTYPES, DType, Layout, StorageFormat


def torch_dtype(dtype: DType) -> torch.dtype:
    """The ``torch.dtype`` of a kfam dtype; ``TypeError`` when the installed PyTorch lacks it.

    Packed ``FP4`` is ``torch.float4_e2m1fn_x2``, two elements per byte: its last extent is
    half the logical one.
    """
    name = _TORCH_DTYPES[DType(dtype)]
    found = getattr(torch, name, None)
    if not isinstance(found, torch.dtype):
        raise TypeError(
            f"kfam dtype {DType(dtype).spelling} is torch.{name}, which PyTorch "
            f"{torch.__version__} does not have"
        )
    return found


def kfam_dtype(dtype: torch.dtype) -> DType:
    """The kfam dtype of a ``torch.dtype``; ``TypeError`` for one kfam does not know."""
    for member, name in _TORCH_DTYPES.items():
        if getattr(torch, name, None) == dtype:
            return member
    raise TypeError(f"torch.{dtype} is no kfam dtype")


def tensor_arg(tensor: torch.Tensor, param: Param) -> TensorArg:
    """What a catalog's ``validate_call`` needs to know of a real tensor passed for ``param``, read
    from its metadata alone (no data is read): dtype, extents, strides, storage offset, the
    storage's size and address, and device index. Its format is ``FRACTAL_NZ`` for an NZ
    parameter (a CPU tensor cannot say it is blocked; a backend with physical formats passes
    its tensor's own, e.g. torch_npu's) and ``ND`` otherwise. ``TypeError`` for a dtype kfam
    does not know."""
    storage = tensor.untyped_storage()
    nz = param.layout is Layout.NZ
    return TensorArg(
        dtype=kfam_dtype(tensor.dtype),
        shape=tuple(int(d) for d in tensor.shape),
        strides=tuple(int(s) for s in tensor.stride()),
        storage_offset=int(tensor.storage_offset()),
        storage_bytes=int(storage.nbytes()),
        storage=int(storage.data_ptr()),
        format=StorageFormat.FRACTAL_NZ if nz else StorageFormat.ND,
        device_index=tensor.device.index or 0,
    )
