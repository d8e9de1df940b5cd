/*
 * A header-only C consumer of the generated kfam.h: the example of docs/c.md.
 *
 * It looks up a family by name in the tables (no library is linked: this
 * program is one translation unit, so it defines KFAM_IMPLEMENTATION),
 * prints its signature, return aliases, final-ABI slots, receipts and
 * identity, and answers "is it supported on platform P in mode M?" from the
 * tables alone. codegen/tests/c_header.rs compiles it with
 *   gcc -std=c99 -Wall -Wextra -Werror -pedantic -I generated/include
 * runs it for every family, and compares the output with the Rust IR.
 *
 * Usage: consumer [FAMILY]   (default: add_bf16_1024)
 * Exit status: 0 approved, 1 unknown, 2 retired (its tombstone is printed).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define KFAM_IMPLEMENTATION
#include "kfam/kfam.h"
#include "kfam/kfam_constants.h"

/* Look a family up by name; NULL when it is not approved. */
static const kfam_family *find_family(const char *name)
{
    uint32_t i;
    for (i = 0; i < KFAM_FAMILY_COUNT; ++i) {
        if (strcmp(kfam_families[i].name, name) == 0) {
            return &kfam_families[i];
        }
    }
    return NULL;
}

/* The tombstone of a retired family; NULL when `name` was never retired. */
static const kfam_retired *find_retired(const char *name)
{
    /* Signed: with no retired family the bound is 0, and an unsigned
     * `i < 0` is a -Wtype-limits error. */
    long i;
    for (i = 0; i < KFAM_RETIRED_COUNT; ++i) {
        if (strcmp(kfam_retired_families[i].name, name) == 0) {
            return &kfam_retired_families[i];
        }
    }
    return NULL;
}

/*
 * Header-only capability: the first profile of `f` on `platform` in `mode`
 * that a receipt qualifies, or NULL. (The runtime library's kfam_capability
 * answers the same question, with a typed refusal.)
 */
static const kfam_profile *qualified_profile(const kfam_family *f, int32_t platform, int32_t mode)
{
    uint32_t p, r;
    for (p = 0; p < f->profile_count; ++p) {
        const kfam_profile *profile = &f->profiles[p];
        if (profile->platform != platform || profile->execution_mode != mode) {
            continue;
        }
        for (r = 0; r < f->receipt_count; ++r) {
            if (f->receipts[r].profile == p) {
                return profile;
            }
        }
    }
    return NULL;
}

/* The bits of a double, so the output compares exactly with the IR. */
static uint64_t bits_of(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

/* The operation payload on one line (custom: the semantics on the next). */
static void print_operation(const kfam_family *f)
{
    const kfam_param *p = f->params;
    uint32_t i;
    printf("operation %s", kfam_operation_kind_name(f->operation_kind));
    switch (f->operation_kind) {
    case KFAM_OPERATION_KIND_ELEMENTWISE_BINARY:
    case KFAM_OPERATION_KIND_MATMUL:
        if (f->operation_kind == KFAM_OPERATION_KIND_ELEMENTWISE_BINARY) {
            printf(" op %s", kfam_binary_op_name(f->binary_op));
        } else {
            printf(" m %" PRId64 " k %" PRId64 " n %" PRId64 " accumulate %" PRId32, f->m, f->k, f->n,
                   f->accumulate);
        }
        for (i = 0; i < KFAM_OPERAND_COUNT; ++i) {
            printf(" %s", p[f->operands[i]].name);
        }
        break;
    case KFAM_OPERATION_KIND_ELEMENTWISE_UNARY:
        printf(" op %s %s %s", kfam_unary_op_name(f->elementwise_unary->op), p[f->elementwise_unary->input].name,
               p[f->elementwise_unary->out].name);
        break;
    case KFAM_OPERATION_KIND_REDUCE:
        printf(" op %s keepdim %" PRId32 " axes", kfam_reduce_op_name(f->reduce->op), f->reduce->keepdim);
        for (i = 0; i < f->reduce->axis_count; ++i) {
            printf(" %" PRIu32, f->reduce->axes[i]);
        }
        printf(" %s %s", p[f->reduce->input].name, p[f->reduce->out].name);
        break;
    case KFAM_OPERATION_KIND_SOFTMAX:
        printf(" axis %" PRIu32 " %s %s", f->softmax->axis, p[f->softmax->input].name, p[f->softmax->out].name);
        break;
    case KFAM_OPERATION_KIND_NORM:
        printf(" op %s axis %" PRIu32 " eps %016" PRIx64 " eps_param %" PRId32 " %s %s %s %s",
               kfam_norm_kind_name(f->norm->op), f->norm->axis, bits_of(f->norm->eps), f->norm->eps_param,
               p[f->norm->input].name, p[f->norm->weight].name, f->norm->bias < 0 ? "-" : p[f->norm->bias].name,
               p[f->norm->out].name);
        break;
    case KFAM_OPERATION_KIND_PAGED_ATTENTION_DECODE: {
        const kfam_paged_attention_decode *a = f->paged_attention_decode;
        printf(" layout %s scale %016" PRIx64 " scale_param %" PRId32 " %s %s %s %s %s %s",
               kfam_cache_layout_name(a->layout), bits_of(a->scale), a->scale_param,
               p[a->query].name, p[a->key_cache].name, p[a->value_cache].name, p[a->block_table].name,
               p[a->context_lens].name, p[a->out].name);
        break;
    }
    case KFAM_OPERATION_KIND_CUSTOM:
        printf(" unchecked\nsemantics %s", f->semantics);
        break;
    case KFAM_OPERATION_KIND_PACKED_ATTENTION_PREFILL: {
        const kfam_packed_attention_prefill *a = f->packed_attention_prefill;
        printf(" causal %d scale %016" PRIx64 " scale_param %" PRId32 " %s %s %s %s %s %s %s %s", a->causal ? 1 : 0,
               bits_of(a->scale), a->scale_param, p[a->query].name, p[a->key].name, p[a->value].name,
               p[a->cu_seqlens_q].name, p[a->cu_seqlens_k].name, p[a->out].name,
               a->max_seqlen_q < 0 ? "-" : p[a->max_seqlen_q].name, a->max_seqlen_k < 0 ? "-" : p[a->max_seqlen_k].name);
        break;
    }
    case KFAM_OPERATION_KIND_ROPE: {
        const kfam_rope *r = f->rope;
        printf(" rotary_dim %" PRIu32 " interleaved %d %s %s %s %s %s %s", r->rotary_dim, r->interleaved ? 1 : 0,
               p[r->query].name, p[r->key].name, p[r->cos].name, p[r->sin].name, p[r->query_out].name,
               p[r->key_out].name);
        break;
    }
    case KFAM_OPERATION_KIND_LINEAR: {
        const kfam_linear *l = f->linear;
        printf(" weight_layout %s %s %s %s %s", kfam_weight_layout_name(l->weight_layout), p[l->input].name,
               p[l->weight].name, l->bias < 0 ? "-" : p[l->bias].name, p[l->out].name);
        break;
    }
    case KFAM_OPERATION_KIND_DENSE_ATTENTION: {
        const kfam_dense_attention *a = f->dense_attention;
        printf(" causal %d scale %016" PRIx64 " scale_param %" PRId32 " %s %s %s %s", a->causal ? 1 : 0,
               bits_of(a->scale), a->scale_param, p[a->query].name, p[a->key].name, p[a->value].name, p[a->out].name);
        break;
    }
    default:
        printf(" unknown");
        break;
    }
    printf("\n");
}

static void print_shape(const int64_t *shape, uint32_t rank)
{
    uint32_t d;
    printf("[");
    for (d = 0; d < rank; ++d) {
        printf("%s%" PRId64, d == 0 ? "" : ", ", shape[d]);
    }
    printf("]");
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : "add_bf16_1024";
    const kfam_family *f = find_family(name);
    uint32_t i, j;
    int32_t platform, mode;

    if (f == NULL) {
        /* Retired (evict its artifacts) is not unknown (perhaps approved by
         * a newer header): exit 2 and say why. */
        const kfam_retired *r = find_retired(name);
        if (r != NULL) {
            printf("retired %s revision %" PRIu32 " identity %s receipts %" PRIu32 "\n", r->name,
                   r->revision, r->identity, r->receipt_count);
            for (i = 0; i < r->receipt_count; ++i) {
                printf("retired receipt %s\n", r->receipts[i]);
            }
            printf("reason %s\n", r->reason);
            return 2;
        }
        fprintf(stderr, "%s is not an approved family\n", name);
        return 1;
    }
    if (kfam_header_table.abi_major != KFAM_ABI_MAJOR || f->struct_size != sizeof(kfam_family)) {
        fprintf(stderr, "inconsistent tables\n");
        return 1;
    }

    printf("family %s\n", f->name);
    printf("index %" PRIu32 "\n", f->index);
    printf("revision %" PRIu32 "\n", f->revision);
    printf("identity %s\n", f->identity);
    printf("contract %s\n", kfam_contract_name(f->contract));
    printf("torch %" PRId32 "\n", f->torch);
    printf("torch_schema %s\n", f->torch_schema != NULL ? f->torch_schema : "-");
    print_operation(f);
    printf("counts params %" PRIu32 " tensors %" PRIu32 " scalars %" PRIu32 "\n", f->param_count,
           f->tensor_count, f->scalar_count);

    for (i = 0; i < f->param_count; ++i) {
        const kfam_param *p = &f->params[i];
        printf("param %" PRIu32 " %s %s %s %s %s shape ", p->index, p->name, kfam_param_kind_name(p->kind),
               kfam_direction_name(p->direction), kfam_dtype_name(p->dtype), kfam_layout_name(p->layout));
        print_shape(p->shape, p->rank);
        printf(" lowered ");
        print_shape(p->lowered_shape, p->lowered_rank);
        printf(" pool %" PRIu32 "\n", p->pool_index);
        if (p->doc != NULL) {
            printf("doc %s: %s\n", p->name, p->doc);
        }
    }
    for (i = 0; i < f->return_count; ++i) {
        printf("return %" PRIu32 " %s\n", f->returns[i], f->params[f->returns[i]].name);
    }
    for (i = 0; i < f->profile_count; ++i) {
        const kfam_profile *pr = &f->profiles[i];
        printf("profile %s %s %s %s %s\n", pr->name, kfam_platform_name(pr->platform),
               kfam_backend_name(pr->backend), kfam_runtime_name(pr->runtime),
               kfam_execution_mode_name(pr->execution_mode));
        for (j = 0; j < pr->binding_count; ++j) {
            const kfam_binding *b = &pr->bindings[j];
            printf("slot %s %s %" PRIu32 " %s\n", pr->name, f->params[b->param].name, b->slot,
                   kfam_binding_kind_name(b->kind));
        }
    }
    for (i = 0; i < f->receipt_count; ++i) {
        const kfam_receipt *r = &f->receipts[i];
        printf("receipt %s %s %s %s\n", f->profiles[r->profile].name, r->codec, r->artifact, r->sha256);
        printf("evidence %s | %s | %s\n", r->evidence_date, r->evidence_hardware,
               r->evidence_note != NULL ? r->evidence_note : "-");
        if (r->evidence_tool != NULL) {
            printf("qualification %s cases %" PRIu32 " seed %" PRId64 "\n", r->evidence_tool, r->evidence_cases,
                   r->evidence_seed);
            for (j = 0; j < r->evidence_version_count; ++j) {
                printf("version %s\n", r->evidence_versions[j]);
            }
            for (j = 0; j < r->evidence_shape_count; ++j) {
                printf("covered %s\n", r->evidence_shapes[j]);
            }
            for (j = 0; j < r->evidence_error_count; ++j) {
                const kfam_output_error *e = &r->evidence_errors[j];
                printf("error %s abs %016" PRIx64 " rel %016" PRIx64 "\n", f->params[e->output].name,
                       bits_of(e->max_abs), bits_of(e->max_rel));
            }
            printf("runs %" PRIu32 " deterministic %d spread %016" PRIx64 "\n", r->evidence_runs,
                   (int)r->evidence_deterministic, bits_of(r->evidence_run_max_abs));
        }
    }
    for (i = 0; i < f->symbol_count; ++i) {
        const kfam_symbol *s = &f->symbols[i];
        printf("symbol %s min %" PRId64 " max %" PRId64 " multiple_of %" PRId64, s->name, s->min, s->max,
               s->multiple_of);
        for (j = 0; j < s->use_count; ++j) {
            printf(" %s[%" PRIu32 "]@%" PRIu32, f->params[s->uses[j].param].name, s->uses[j].axis,
                   s->uses[j].tensor);
        }
        printf("\n");
    }
    for (platform = 0; platform < KFAM_PLATFORM_COUNT; ++platform) {
        for (mode = 0; mode < KFAM_EXECUTION_MODE_COUNT; ++mode) {
            const kfam_profile *pr = qualified_profile(f, platform, mode);
            printf("capability %s %s: %s\n", kfam_platform_name(platform), kfam_execution_mode_name(mode),
                   pr != NULL ? pr->name : "unsupported");
        }
    }

#ifdef KFAM_ADD_BF16_1024_INDEX
    /* The named constants of one family, as native launch code uses them. */
    if (strcmp(f->name, KFAM_ADD_BF16_1024_NAME) == 0) {
        printf("macro INDEX %d\n", KFAM_ADD_BF16_1024_INDEX);
        printf("macro IDENTITY %s\n", KFAM_ADD_BF16_1024_IDENTITY);
        printf("macro PARAM_OUT %d\n", KFAM_ADD_BF16_1024_PARAM_OUT);
        printf("macro SLOT_LHS %d SLOT_RHS %d SLOT_OUT %d\n", KFAM_ADD_BF16_1024_SLOT_LHS,
               KFAM_ADD_BF16_1024_SLOT_RHS, KFAM_ADD_BF16_1024_SLOT_OUT);
    }
#endif

    printf("summary:\n%s\n", f->summary);
    return 0;
}
