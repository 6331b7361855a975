"""The op table: one class per op, named after the ``grad_fn`` torch records for it, in files by
family (as torch's ``derivatives.yaml`` lists them by kind).

Each op has a ``forward`` written in NumPy and, in ``rules``, one backward rule per input: its
text (the local derivative, as the ledger shows it) and the function that computes the
vector-Jacobian product ``g · ∂out/∂input`` from the upstream gradient ``g``. The base class is
in ``op.py``; the helpers rules are written in, in ``rules.py``.

Adding an op is one class in its family's file and one line in ``tests/test_ops_table.py``.
"""

# ruff: noqa: F401
# (the face: every op class as gradbook.ops.<name>, as the Tensor methods and torch users name it)
from ..autograd.inplace import CopySlices  # a write through a view, recorded on its base
from .activation import (
    EluBackward0,
    EluBackward1,
    GeluBackward0,
    HardtanhBackward0,
    LeakyReluBackward0,
    LeakyReluBackward1,
    LogSigmoidBackward0,
    LogSoftmaxBackward0,
    MishBackward0,
    ReluBackward0,
    SiluBackward0,
    SoftmaxBackward0,
    SoftplusBackward0,
)
from .arithmetic import (
    AddBackward0,
    AddcmulBackward0,
    DivBackward0,
    DivBackward2,
    LerpBackward0,
    MulBackward0,
    NegBackward0,
    NotImplementedBackward,
    PowBackward0,
    PowBackward1,
    PowBackward2,
    ReciprocalBackward0,
    RemainderBackward0,
    RemainderBackward1,
    RsubBackward1,
    SubBackward0,
)
from .conv import AvgPool2DBackward0, ConvolutionBackward0, MaxPool2DWithIndicesBackward0
from .indexing import (
    CopyBackwards,
    EmbeddingBackward0,
    FillBackward2,
    GatherBackward0,
    IndexBackward0,
    IndexPutBackward0,
    IndexSelectBackward0,
    MaskedFillBackward0,
    NormalBackward0,
    NormalBackward1,
    NormalBackward2,
    NormalBackward3,
    ScatterAddBackward0,
    ScatterBackward0,
    ScatterBackward1,
    SelectBackward0,
    SliceBackward0,
    SortBackward0,
    TopkBackward0,
    UniformBackward0,
    ZeroBackward0,
)
from .linalg import (
    AddmmBackward0,
    BmmBackward0,
    DotBackward0,
    LinalgCrossBackward0,
    MmBackward0,
    MvBackward0,
    TraceBackward0,
)
from .loss import (
    BinaryCrossEntropyBackward0,
    BinaryCrossEntropyWithLogitsBackward0,
    HuberLossBackward0,
    MseLossBackward0,
    NllLossBackward0,
    SmoothL1LossBackward0,
)
from .normalization import NativeBatchNormBackward0, NativeLayerNormBackward0
from .op import Op
from .pointwise import (
    AbsBackward0,
    AcosBackward0,
    AsinBackward0,
    Atan2Backward0,
    AtanBackward0,
    CeilBackward0,
    ClampBackward1,
    ClampMaxBackward0,
    ClampMinBackward0,
    CosBackward0,
    CoshBackward0,
    ErfBackward0,
    Exp2Backward0,
    ExpBackward0,
    Expm1Backward0,
    FloorBackward0,
    FracBackward0,
    HypotBackward0,
    Log1PBackward0,
    Log2Backward0,
    Log10Backward0,
    LogaddexpBackward0,
    LogBackward0,
    MaximumBackward0,
    MinimumBackward0,
    NanToNumBackward0,
    RoundBackward0,
    RoundBackward1,
    SigmoidBackward0,
    SignBackward0,
    SinBackward0,
    SinhBackward0,
    SqrtBackward0,
    TanhBackward0,
    TruncBackward0,
    WhereBackward0,
)
from .reduce import (
    AmaxBackward0,
    AminBackward0,
    CumprodBackward0,
    CumsumBackward0,
    LinalgVectorNormBackward0,
    LogsumexpBackward0,
    MaxBackward0,
    MaxBackward1,
    MeanBackward0,
    MeanBackward1,
    MinBackward0,
    MinBackward1,
    ProdBackward0,
    ProdBackward1,
    StdBackward0,
    SumBackward0,
    SumBackward1,
    VarBackward0,
)
from .rules import unbroadcast
from .saved import WrappedNumber
from .shape import (
    AliasBackward0,
    BackwardHookFunctionBackward,
    CatBackward0,
    CloneBackward0,
    DiagonalBackward0,
    ExpandBackward0,
    FlipBackward0,
    PermuteBackward0,
    RepeatBackward0,
    RollBackward0,
    SplitBackward0,
    SplitWithSizesBackward0,
    SqueezeBackward0,
    SqueezeBackward1,
    SqueezeBackward2,
    SqueezeBackward4,
    StackBackward0,
    TBackward0,
    ToCopyBackward0,
    TransposeBackward0,
    TrilBackward0,
    TriuBackward0,
    UnbindBackward0,
    UnsafeViewBackward0,
    UnsqueezeBackward0,
    ViewBackward0,
)
