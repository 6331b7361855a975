"""torch's names that gradbook does not have (from torch 2.13.0): asking for one raises
a clear error that names it, instead of a bare AttributeError. ``tests/test_missing_names.py``
keeps these lists equal to what torch has and gradbook lacks."""

from __future__ import annotations

TENSOR = frozenset(
    """
H acos_ acosh acosh_ addbmm addbmm_ addcdiv addcdiv_ addcmul_ addmm_ addmv addmv_ addr
addr_ adjoint aminmax angle apply_ arccos_ arccosh arccosh_ arcsin_ arcsinh arcsinh_ arctan2_
arctan_ arctanh arctanh_ argwhere as_strided as_strided_ as_strided_scatter as_subclass asin_ asinh
asinh_ atan2_ atan_ atanh atanh_ baddbmm baddbmm_ bernoulli bfloat16 bincount bitwise_and
bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_ bitwise_or bitwise_or_
bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_ broadcast_to byte cauchy_
ccol_indices cdouble cfloat chalf char cholesky cholesky_inverse cholesky_solve clamp_max_
clamp_min_ clip_ coalesce col_indices conj conj_physical conj_physical_ const_data_ptr copysign
copysign_ corrcoef cosh_ count_nonzero cov crow_indices cummax cummin cumprod_ cumsum_ deg2rad
deg2rad_ dense_dim dequantize det diag diag_embed diagflat diagonal_scatter digamma digamma_
dim_order dist dsplit eig eq_ erf_ erfc erfc_ erfinv erfinv_ exp2_ expm1_ exponential_
fill_diagonal_ fix_ fliplr flipud float_power float_power_ fmax fmin fmod fmod_ frac_ frexp gcd gcd_
ge_ geometric_ geqrf ger grad_dtype greater_ greater_equal_ gt_ half hardshrink hash_tensor
heaviside heaviside_ histc histogram hsplit hypot_ i0 i0_ igamma igamma_ igammac igammac_ imag index
index_add index_add_ index_copy index_copy_ index_fill index_fill_ index_put index_reduce
index_reduce_ indices inner int int_repr inverse ipu is_coalesced is_complex is_conj is_distributed
is_ipu is_maia is_meta is_mkldnn is_mps is_mtia is_neg is_nested is_nonzero is_pinned is_quantized
is_same_size is_set_to is_shared is_signed is_sparse is_sparse_csr is_vulkan is_xla is_xpu isneginf
isposinf isreal istft itemsize kthvalue layout lcm lcm_ ldexp ldexp_ le_ lerp_ less_ less_equal_
lgamma lgamma_ log10_ log1p_ log2_ log_normal_ logaddexp2 logcumsumexp logdet logical_and
logical_and_ logical_not logical_not_ logical_or logical_or_ logical_xor logical_xor_ logit logit_
lstsq lt_ lu lu_solve mH map2_ map_ masked_scatter masked_scatter_ masked_select matrix_exp
matrix_power median mode module_load msort mtia multinomial mvlgamma mvlgamma_ name
nan_to_num_ nanmean nanmedian nanquantile nansum narrow_copy ndimension ne_ new
new_empty_strided nextafter nextafter_ nonzero nonzero_static not_equal_ orgqr ormqr pin_memory
pinverse polygamma polygamma_ positive prelu put put_ q_per_channel_axis q_per_channel_scales
q_per_channel_zero_points q_scale q_zero_point qr qscheme quantile rad2deg rad2deg_ ravel real
reciprocal reciprocal_ record_stream reinforce renorm renorm_ repeat_interleave resize resize_
resize_as resize_as_ resize_as_sparse_ resolve_conj resolve_neg rot90 row_indices rsqrt_
scatter_reduce scatter_reduce_ select select_scatter set_ sgn sgn_ share_memory_ short signbit sinc
sinc_ sinh_ slice_inverse slice_scatter slogdet smm solve sparse_dim sparse_mask sparse_resize_
sparse_resize_and_clear_ split_with_sizes squeeze_ sspaddmm stft storage storage_offset storage_type
stride svd swapaxes_ swapdims_ symeig t_ take take_along_dim tan tan_ tensor_split
to_dense to_mkldnn to_padded_tensor to_sparse to_sparse_bsc to_sparse_bsr to_sparse_coo
to_sparse_csc to_sparse_csr transpose_ triangular_solve tril_ triu_ trunc_ type_as
unflatten unfold unique unique_consecutive unsafe_chunk unsafe_split unsafe_split_with_sizes
unsqueeze_ untyped_storage values vdot volatile vsplit xlogy xlogy_ xpu
""".split()
)

TORCH = frozenset(
    """
abs_ acos_ acosh acosh_ adaptive_avg_pool1d adaptive_max_pool1d addbmm addcdiv addmv addmv_ addr
adjoint affine_grid_generator alias_copy all alpha_dropout alpha_dropout_ aminmax amp angle any ao
arccos_ arccosh arccosh_ arcsin_ arcsinh arcsinh_ arctan_ arctanh arctanh_
are_deterministic_algorithms_enabled argwhere as_strided as_strided_ as_strided_copy
as_strided_scatter asarray asin_ asinh asinh_ atan_ atanh atanh_ atleast_1d atleast_2d atleast_3d
autocast autocast_decrement_nesting autocast_increment_nesting avg_pool1d baddbmm bartlett_window
batch_norm batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt
batch_norm_gather_stats batch_norm_gather_stats_with_counts batch_norm_stats batch_norm_update_stats
bfloat16 bilinear binary_cross_entropy_with_logits bincount binomial bit bits16 bits1x8 bits2x4
bits4x2 bits8 bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor
blackman_window block_diag broadcast_shapes broadcast_tensors broadcast_to bucketize builtins
can_cast cartesian_prod ccol_indices_copy cdist cdouble ceil_ celu celu_ cfloat chain_matmul chalf
channel_shuffle channels_last channels_last_3d cholesky cholesky_inverse cholesky_solve
choose_qparams_optimized clamp_ clamp_max_ clamp_min_ classes classproperty clear_autocast_cache
clip_ clone col_indices_copy column_stack combinations compile compiled_with_cxx11_abi compiler
complex complex128 complex32 complex64 cond conj conj_physical conj_physical_ constant_pad_nd
contiguous_format conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d conv_transpose3d
convolution copysign corrcoef cos_ cosh_ cosine_embedding_loss cosine_similarity count_nonzero cov
cpp cpu crow_indices_copy ctc_loss ctypes cudnn_affine_grid_generator cudnn_batch_norm
cudnn_convolution cudnn_convolution_add_relu cudnn_convolution_relu cudnn_convolution_transpose
cudnn_grid_sampler cudnn_is_acceptable cummax cummin cumulative_trapezoid deg2rad deg2rad_
dequantize det detach detach_ detach_copy diag diag_embed diagflat diagonal_copy diagonal_scatter
digamma dist distributed distributions dropout dropout_ dsmm dsplit dstack e eig embedding
embedding_bag embedding_renorm_ empty_like empty_permuted empty_quantized empty_strided erf_ erfc
erfc_ erfinv exp2_ exp_ expand_copy expm1_ export fake_quantize_per_channel_affine
fake_quantize_per_tensor_affine fbgemm_linear_fp16_weight fbgemm_linear_fp16_weight_fp32_activation
fbgemm_linear_int8_weight fbgemm_linear_int8_weight_fp32_activation fbgemm_linear_quantize_weight
fbgemm_pack_gemm_matrix_fp16 fbgemm_pack_quantized_matrix feature_alpha_dropout
feature_alpha_dropout_ feature_dropout feature_dropout_ fft fill fill_ finfo fix_ fliplr flipud
float4_e2m1fn_x2 float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu
float_power floor_ fmax fmin fmod fork frac_ frexp frobenius_norm from_dlpack from_file frombuffer
functional functools fused_moving_avg_obs_fake_quant futures fx gcd gcd_ geqrf ger
get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype get_autocast_ipu_dtype
get_autocast_xla_dtype get_deterministic_debug_mode get_device get_device_module get_file_path
get_float32_matmul_precision get_num_interop_threads get_num_threads glob gradient grid_sampler
grid_sampler_2d grid_sampler_3d group_norm gru gru_cell hamming_window hann_window hardshrink
has_lapack has_mkl has_openmp has_spectral hash_tensor heaviside hinge_embedding_loss histc
histogram histogramdd hsmm hsplit hspmm hstack hub i0 i0_ igamma igammac iinfo imag import_ir_module
import_ir_module_from_buffer importlib index_add index_copy index_fill index_put index_put_
index_reduce indices_copy inf init_num_threads inner inspect instance_norm int1 int16 int2 int3 int4
int5 int6 int7 int8 int_repr inverse is_anomaly_check_nan_enabled is_anomaly_enabled
is_autocast_cache_enabled is_autocast_cpu_enabled is_autocast_enabled is_autocast_ipu_enabled
is_autocast_xla_enabled is_complex is_conj is_deterministic_algorithms_warn_only_enabled
is_distributed is_neg is_nonzero is_same_size is_signed is_storage is_vulkan_available
is_warn_always_enabled isin isneginf isposinf isreal istft jagged jit kaiser_window kl_div kthvalue
layer_norm layout lcm lcm_ ldexp ldexp_ legacy_contiguous_format lgamma library lobpcg log10_ log1p_
log2_ log_ logaddexp2 logcumsumexp logdet logical_and logical_not logical_or logical_xor logit
logit_ logspace lstm lstm_cell lstsq lu lu_solve lu_unpack margin_ranking_loss masked masked_scatter
masked_select math matrix_exp matrix_power matrix_rank max_pool1d max_pool1d_with_indices max_pool2d
max_pool3d median memory_format merge_type_from_type_comment miopen_batch_norm miopen_convolution
miopen_convolution_add_relu miopen_convolution_relu miopen_convolution_transpose miopen_ctc_loss
miopen_depthwise_convolution miopen_rnn mkldnn_adaptive_avg_pool2d mkldnn_convolution
mkldnn_linear_backward_weights mkldnn_max_pool2d mkldnn_max_pool3d mkldnn_rnn_layer mode monitor mps
msort mtia multiprocessing mvlgamma nan nan_to_num_ nanmean nanmedian nanquantile nansum narrow_copy
native_batch_norm native_channel_shuffle native_dropout native_group_norm native_layer_norm
native_norm neg_ negative_ nested newaxis nextafter nonzero nonzero_static norm_except_dim
nuclear_norm onnx orgqr ormqr os overrides package pairwise_distance parse_ir parse_schema
parse_type_comment pca_lowrank pdist per_channel_affine per_channel_affine_float_qparams
per_channel_symmetric per_tensor_affine per_tensor_symmetric permute_copy pi pinverse pixel_shuffle
pixel_unshuffle platform poisson poisson_nll_loss polar polygamma positive prelu
prepare_multiprocessing_environment preserve_format profiler
profiler_allow_cudagraph_cupti_lazy_reinit_cuda12 promote_types put q_per_channel_axis
q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qint32 qint8 qr qscheme quantile
quantization quantize_per_channel quantize_per_tensor quantize_per_tensor_dynamic
quantized_batch_norm quantized_gru quantized_gru_cell quantized_lstm quantized_lstm_cell
quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d quantized_rnn_relu_cell
quantized_rnn_tanh_cell quasirandom quint2x4 quint4x2 quint8 rad2deg rad2deg_ random range ravel
real reciprocal reciprocal_ relu_ renorm repeat_interleave resize_as_ resize_as_sparse_ resolve_conj
resolve_neg result_type return_types rms_norm rnn_relu rnn_relu_cell rnn_tanh rnn_tanh_cell rot90
round_ row_indices_copy row_stack rrelu rrelu_ rsqrt_ rsub saddmm scalar_tensor scatter_reduce
searchsorted segment_reduce select select_copy select_scatter selu selu_ set_anomaly_enabled
set_autocast_cache_enabled set_autocast_cpu_dtype set_autocast_cpu_enabled set_autocast_dtype
set_autocast_enabled set_autocast_gpu_dtype set_autocast_ipu_dtype set_autocast_ipu_enabled
set_autocast_xla_dtype set_autocast_xla_enabled set_default_tensor_type set_deterministic_debug_mode
set_float32_matmul_precision set_flush_denormal set_num_interop_threads set_num_threads
set_warn_always sgn short sigmoid_ signal signbit sin_ sinc sinc_ sinh_ slice_copy slice_inverse
slice_scatter slogdet smm solve sparse sparse_bsc sparse_bsc_tensor sparse_bsr sparse_bsr_tensor
sparse_compressed_tensor sparse_coo sparse_coo_tensor sparse_csc sparse_csc_tensor sparse_csr
sparse_csr_tensor special split_copy split_with_sizes split_with_sizes_copy spmm sqrt_ square_
squeeze_copy sspaddmm std_mean stft storage strided svd svd_lowrank sym_constrain_range
sym_constrain_range_for_size sym_float sym_fresh_size sym_int sym_ite sym_max sym_min sym_not
sym_sqrt sym_sum symeig sys t_copy take take_along_dim tan tan_ tanh_ tensor_split tensordot testing
textwrap thread_safe_generator threading threshold threshold_ to_dlpack torch torch_version
transpose_copy trapezoid trapz triangular_solve tril_indices triplet_margin_loss triu_indices trunc_
typename types uint1 uint16 uint2 uint3 uint32 uint4 uint5 uint6 uint64 uint7 uint8 unbind_copy
unflatten unfold_copy unify_type_list unique unique_consecutive unravel_index unsafe_chunk
unsafe_split unsafe_split_with_sizes unsqueeze_copy use_deterministic_algorithms values_copy vander
var_mean vdot version view_as_complex view_as_complex_copy view_as_real view_as_real_copy view_copy
vsplit vstack wait warnings while_loop windows xlogy xlogy_ xpu zero_
""".split()
)


# torch.autograd's names that gradbook.autograd lacks
AUTOGRAD = frozenset(
    """
anomaly_mode cast detect_anomaly enforce_grad_layout_policy handle_torch_function
has_torch_function is_multithreading_enabled is_tensor_like is_view_replay_enabled kineto_available
overload profiler_legacy profiler_util set_detect_anomaly set_multithreading_enabled torch warnings
""".split()
)

# torch.utils's names that gradbook.utils lacks
UTILS = frozenset(
    """
backcompat backend_registration checkpoint cmake_prefix_path collect_env copyreg cpp_backtrace
deterministic dlpack generate_methods_for_privateuse1_backend get_cpp_backtrace hooks
rename_privateuse1_backend set_module swap_tensors throughput_benchmark torch weak weakref
""".split()
)


class NotInGradbookError(NotImplementedError, AttributeError):
    """torch has this name and gradbook does not. It is a NotImplementedError for the reader, and
    an AttributeError for ``hasattr`` and ``getattr(..., default)``, which then find nothing."""


def missing(where: str, name: str) -> NotInGradbookError:
    """The error for torch's ``where + name`` (``"Tensor."``, ``"autograd."``, ``"utils."`` or ``""``), which
    gradbook lacks."""
    mine = "gradbook's Tensor has no " if where == "Tensor." else f"gradbook has no {where}"
    return NotInGradbookError(
        f"{mine}{name} (torch.{where}{name}): gradbook covers what teaching programs use (README: 'What "
        "the engine supports'); write it with the ops gradbook has, or run this part with torch"
    )
