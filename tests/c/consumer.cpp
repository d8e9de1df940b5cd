// A header-only C++17 consumer of the generated kfam.h. It prints exactly
// what tests/c/consumer.c prints (codegen/tests/c_header.rs checks both
// against the Rust IR), written the way C++ code would use the tables:
// range-for over kfam_families, std::string_view, iostreams.
//
// Usage: consumer_cpp [FAMILY]   (default: add_bf16_1024)
// Exit status: 0 approved, 1 unknown, 2 retired (its tombstone is printed).
#include <algorithm>
#include <cstring>
#include <iomanip>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#define KFAM_IMPLEMENTATION
#include "kfam/kfam.h"
#include "kfam/kfam_constants.h"

namespace {

const kfam_family *find_family(std::string_view name)
{
    for (const kfam_family &f : kfam_families) {
        if (name == f.name) {
            return &f;
        }
    }
    return nullptr;
}

const kfam_retired *find_retired(std::string_view name)
{
    // Not a range-for: with no retired family the array holds one
    // placeholder. Signed, as an unsigned `i < 0` is a -Wtype-limits error.
    for (long i = 0; i < KFAM_RETIRED_COUNT; ++i) {
        if (name == kfam_retired_families[i].name) {
            return &kfam_retired_families[i];
        }
    }
    return nullptr;
}

// The first profile on (platform, mode) that a receipt qualifies.
const kfam_profile *qualified_profile(const kfam_family &f, int32_t platform, int32_t mode)
{
    for (uint32_t p = 0; p < f.profile_count; ++p) {
        const kfam_profile &profile = f.profiles[p];
        if (profile.platform != platform || profile.execution_mode != mode) {
            continue;
        }
        const kfam_receipt *begin = f.receipts;
        const kfam_receipt *end = f.receipts + f.receipt_count;
        if (std::any_of(begin, end, [p](const kfam_receipt &r) { return r.profile == p; })) {
            return &profile;
        }
    }
    return nullptr;
}

// The bits of a double, so the output compares exactly with the IR.
std::string bits_of(double v)
{
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    std::ostringstream s;
    s << std::hex << std::setw(16) << std::setfill('0') << b;
    return s.str();
}

// The operation payload on one line (custom: the semantics on the next).
void print_operation(std::ostream &out, const kfam_family &f)
{
    const kfam_param *p = f.params;
    out << "operation " << kfam_operation_kind_name(f.operation_kind);
    switch (f.operation_kind) {
    case KFAM_OPERATION_KIND_ELEMENTWISE_BINARY:
    case KFAM_OPERATION_KIND_MATMUL:
        if (f.operation_kind == KFAM_OPERATION_KIND_ELEMENTWISE_BINARY) {
            out << " op " << kfam_binary_op_name(f.binary_op);
        } else {
            out << " m " << f.m << " k " << f.k << " n " << f.n << " accumulate " << f.accumulate;
        }
        for (uint32_t operand : f.operands) {
            out << ' ' << p[operand].name;
        }
        break;
    case KFAM_OPERATION_KIND_ELEMENTWISE_UNARY: {
        const kfam_elementwise_unary &u = *f.elementwise_unary;
        out << " op " << kfam_unary_op_name(u.op) << ' ' << p[u.input].name << ' ' << p[u.out].name;
        break;
    }
    case KFAM_OPERATION_KIND_REDUCE: {
        const kfam_reduce &r = *f.reduce;
        out << " op " << kfam_reduce_op_name(r.op) << " keepdim " << r.keepdim << " axes";
        for (uint32_t i = 0; i < r.axis_count; ++i) {
            out << ' ' << r.axes[i];
        }
        out << ' ' << p[r.input].name << ' ' << p[r.out].name;
        break;
    }
    case KFAM_OPERATION_KIND_SOFTMAX:
        out << " axis " << f.softmax->axis << ' ' << p[f.softmax->input].name << ' ' << p[f.softmax->out].name;
        break;
    case KFAM_OPERATION_KIND_NORM: {
        const kfam_norm &n = *f.norm;
        out << " op " << kfam_norm_kind_name(n.op) << " axis " << n.axis << " eps " << bits_of(n.eps)
            << " eps_param " << n.eps_param << ' ' << p[n.input].name << ' ' << p[n.weight].name << ' '
            << (n.bias < 0 ? "-" : p[n.bias].name) << ' ' << p[n.out].name;
        break;
    }
    case KFAM_OPERATION_KIND_PAGED_ATTENTION_DECODE: {
        const kfam_paged_attention_decode &a = *f.paged_attention_decode;
        out << " layout " << kfam_cache_layout_name(a.layout) << " scale " << bits_of(a.scale) << " scale_param " << a.scale_param << ' ' << p[a.query].name << ' '
            << p[a.key_cache].name << ' ' << p[a.value_cache].name << ' ' << p[a.block_table].name << ' '
            << p[a.context_lens].name << ' ' << p[a.out].name;
        break;
    }
    case KFAM_OPERATION_KIND_CUSTOM:
        out << " unchecked\nsemantics " << f.semantics;
        break;
    case KFAM_OPERATION_KIND_PACKED_ATTENTION_PREFILL: {
        const kfam_packed_attention_prefill &a = *f.packed_attention_prefill;
        out << " causal " << (a.causal ? 1 : 0) << " scale " << bits_of(a.scale) << " scale_param " << a.scale_param
            << ' ' << p[a.query].name << ' ' << p[a.key].name << ' ' << p[a.value].name << ' ' << p[a.cu_seqlens_q].name
            << ' ' << p[a.cu_seqlens_k].name << ' ' << p[a.out].name << ' '
            << (a.max_seqlen_q < 0 ? "-" : p[a.max_seqlen_q].name) << ' '
            << (a.max_seqlen_k < 0 ? "-" : p[a.max_seqlen_k].name);
        break;
    }
    case KFAM_OPERATION_KIND_ROPE: {
        const kfam_rope &r = *f.rope;
        out << " rotary_dim " << r.rotary_dim << " interleaved " << (r.interleaved ? 1 : 0) << ' ' << p[r.query].name
            << ' ' << p[r.key].name << ' ' << p[r.cos].name << ' ' << p[r.sin].name << ' ' << p[r.query_out].name << ' '
            << p[r.key_out].name;
        break;
    }
    case KFAM_OPERATION_KIND_LINEAR: {
        const kfam_linear &l = *f.linear;
        out << " weight_layout " << kfam_weight_layout_name(l.weight_layout) << ' ' << p[l.input].name << ' '
            << p[l.weight].name << ' ' << (l.bias < 0 ? "-" : p[l.bias].name) << ' ' << p[l.out].name;
        break;
    }
    case KFAM_OPERATION_KIND_DENSE_ATTENTION: {
        const kfam_dense_attention &a = *f.dense_attention;
        out << " causal " << (a.causal ? 1 : 0) << " scale " << bits_of(a.scale) << " scale_param " << a.scale_param
            << ' ' << p[a.query].name << ' ' << p[a.key].name << ' ' << p[a.value].name << ' ' << p[a.out].name;
        break;
    }
    default:
        out << " unknown";
        break;
    }
    out << '\n';
}

void print_shape(std::ostream &out, const int64_t *shape, uint32_t rank)
{
    out << '[';
    for (uint32_t d = 0; d < rank; ++d) {
        out << (d == 0 ? "" : ", ") << shape[d];
    }
    out << ']';
}

} // namespace

int main(int argc, char **argv)
{
    const std::string_view name = argc > 1 ? argv[1] : "add_bf16_1024";
    const kfam_family *found = find_family(name);
    if (found == nullptr) {
        if (const kfam_retired *r = find_retired(name)) {
            std::cout << "retired " << r->name << " revision " << r->revision << " identity "
                      << r->identity << " receipts " << r->receipt_count << '\n';
            for (uint32_t i = 0; i < r->receipt_count; ++i) {
                std::cout << "retired receipt " << r->receipts[i] << '\n';
            }
            std::cout << "reason " << r->reason << '\n';
            return 2;
        }
        std::cerr << name << " is not an approved family\n";
        return 1;
    }
    const kfam_family &f = *found;
    std::ostream &out = std::cout;

    out << "family " << f.name << '\n';
    out << "index " << f.index << '\n';
    out << "revision " << f.revision << '\n';
    out << "identity " << f.identity << '\n';
    out << "contract " << kfam_contract_name(f.contract) << '\n';
    out << "torch " << f.torch << '\n';
    out << "torch_schema " << (f.torch_schema != nullptr ? f.torch_schema : "-") << '\n';
    print_operation(out, f);
    out << "counts params " << f.param_count << " tensors " << f.tensor_count << " scalars " << f.scalar_count
        << '\n';

    for (uint32_t i = 0; i < f.param_count; ++i) {
        const kfam_param &p = f.params[i];
        out << "param " << p.index << ' ' << p.name << ' ' << kfam_param_kind_name(p.kind) << ' '
            << kfam_direction_name(p.direction) << ' ' << kfam_dtype_name(p.dtype) << ' '
            << kfam_layout_name(p.layout) << " shape ";
        print_shape(out, p.shape, p.rank);
        out << " lowered ";
        print_shape(out, p.lowered_shape, p.lowered_rank);
        out << " pool " << p.pool_index << '\n';
        if (p.doc != nullptr) {
            out << "doc " << p.name << ": " << p.doc << '\n';
        }
    }
    for (uint32_t i = 0; i < f.return_count; ++i) {
        out << "return " << f.returns[i] << ' ' << f.params[f.returns[i]].name << '\n';
    }
    for (uint32_t i = 0; i < f.profile_count; ++i) {
        const kfam_profile &pr = f.profiles[i];
        out << "profile " << pr.name << ' ' << kfam_platform_name(pr.platform) << ' '
            << kfam_backend_name(pr.backend) << ' ' << kfam_runtime_name(pr.runtime) << ' '
            << kfam_execution_mode_name(pr.execution_mode) << '\n';
        for (uint32_t j = 0; j < pr.binding_count; ++j) {
            const kfam_binding &b = pr.bindings[j];
            out << "slot " << pr.name << ' ' << f.params[b.param].name << ' ' << b.slot << ' '
                << kfam_binding_kind_name(b.kind) << '\n';
        }
    }
    for (uint32_t i = 0; i < f.receipt_count; ++i) {
        const kfam_receipt &r = f.receipts[i];
        out << "receipt " << f.profiles[r.profile].name << ' ' << r.codec << ' ' << r.artifact << ' ' << r.sha256
            << '\n';
        out << "evidence " << r.evidence_date << " | " << r.evidence_hardware << " | "
            << (r.evidence_note != nullptr ? r.evidence_note : "-") << '\n';
        if (r.evidence_tool != nullptr) {
            out << "qualification " << r.evidence_tool << " cases " << r.evidence_cases << " seed " << r.evidence_seed
                << '\n';
            for (uint32_t j = 0; j < r.evidence_version_count; ++j) {
                out << "version " << r.evidence_versions[j] << '\n';
            }
            for (uint32_t j = 0; j < r.evidence_shape_count; ++j) {
                out << "covered " << r.evidence_shapes[j] << '\n';
            }
            for (uint32_t j = 0; j < r.evidence_error_count; ++j) {
                const kfam_output_error &e = r.evidence_errors[j];
                out << "error " << f.params[e.output].name << " abs " << bits_of(e.max_abs) << " rel "
                    << bits_of(e.max_rel) << '\n';
            }
            out << "runs " << r.evidence_runs << " deterministic " << r.evidence_deterministic << " spread "
                << bits_of(r.evidence_run_max_abs) << '\n';
        }
    }
    for (uint32_t i = 0; i < f.symbol_count; ++i) {
        const kfam_symbol &s = f.symbols[i];
        out << "symbol " << s.name << " min " << s.min << " max " << s.max << " multiple_of " << s.multiple_of;
        for (uint32_t j = 0; j < s.use_count; ++j) {
            out << ' ' << f.params[s.uses[j].param].name << '[' << s.uses[j].axis << "]@" << s.uses[j].tensor;
        }
        out << '\n';
    }
    for (int32_t platform = 0; platform < KFAM_PLATFORM_COUNT; ++platform) {
        for (int32_t mode = 0; mode < KFAM_EXECUTION_MODE_COUNT; ++mode) {
            const kfam_profile *pr = qualified_profile(f, platform, mode);
            out << "capability " << kfam_platform_name(platform) << ' ' << kfam_execution_mode_name(mode) << ": "
                << (pr != nullptr ? pr->name : "unsupported") << '\n';
        }
    }

#ifdef KFAM_ADD_BF16_1024_INDEX
    // Named constants work in constant expressions, e.g. to size launch arrays.
    static_assert(KFAM_ADD_BF16_1024_TENSOR_COUNT <= KFAM_MAX_TENSOR_ARGS, "limits");
    if (name == KFAM_ADD_BF16_1024_NAME) {
        out << "macro INDEX " << KFAM_ADD_BF16_1024_INDEX << '\n';
        out << "macro IDENTITY " << KFAM_ADD_BF16_1024_IDENTITY << '\n';
        out << "macro PARAM_OUT " << KFAM_ADD_BF16_1024_PARAM_OUT << '\n';
        out << "macro SLOT_LHS " << KFAM_ADD_BF16_1024_SLOT_LHS << " SLOT_RHS " << KFAM_ADD_BF16_1024_SLOT_RHS
            << " SLOT_OUT " << KFAM_ADD_BF16_1024_SLOT_OUT << '\n';
    }
#endif

    out << "summary:\n" << f.summary << '\n';
    return 0;
}
