// Runtime decisions over two catalogs in one process: this repository's
// (kfam_*, libkfam_catalog) and a team's (npuops_*, libnpuops_catalog),
// each library answering over its own catalog in its own status codes.
//
//   two_catalogs KFAM_META KFAM_SHA256 NPUOPS_META NPUOPS_SHA256
//
// The metas are compiled_meta.json documents of one receipt of each.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <kfam/kfam.h>
#include <npuops/npuops.h>

static std::string slurp(const char *path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Both headers define the same record layouts under their own names.
template <typename Tensor>
static void describe(Tensor &t, int32_t dtype, int32_t format, const int64_t *shape,
                     uint32_t rank, uint64_t bytes, uint64_t storage)
{
    std::memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.dtype = dtype;
    t.format = format;
    t.rank = rank;
    t.shape = shape;
    t.strides = nullptr;
    t.storage_bytes = bytes;
    t.storage = storage;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: two_catalogs KFAM_META KFAM_SHA256 NPUOPS_META NPUOPS_SHA256\n");
        return 2;
    }
    char why[512];

    // Each library serves its header's catalog.
    std::printf("check kfam %s\n",
                kfam_status_name(kfam_check_catalog(KFAM_CATALOG_NAME, KFAM_CATALOG_DIGEST, why,
                                                    sizeof why, nullptr)));
    std::printf("check npuops %s\n",
                npuops_status_name(npuops_check_catalog(NPUOPS_CATALOG_NAME, NPUOPS_CATALOG_DIGEST,
                                                        why, sizeof why, nullptr)));

    // Capability: each over its own families and platforms.
    kfam_capability_result kc;
    std::memset(&kc, 0, sizeof kc);
    kc.struct_size = sizeof kc;
    int32_t s = kfam_capability("add_bf16_1024", KFAM_PLATFORM_XDNA2, KFAM_EXECUTION_MODE_ONBOARD,
                                KFAM_CONTRACT_KERNEL, &kc);
    std::printf("kfam capability %d %s %s\n", (int)s, kfam_capability_outcome_name(kc.outcome),
                kc.profile ? kc.profile->name : "-");
    npuops_capability_result nc;
    std::memset(&nc, 0, sizeof nc);
    nc.struct_size = sizeof nc;
    s = npuops_capability("scale_ok", NPUOPS_PLATFORM_NPU, NPUOPS_EXECUTION_MODE_ONBOARD,
                          NPUOPS_CONTRACT_KERNEL, &nc);
    std::printf("npuops capability %d %s %s\n", (int)s, npuops_capability_outcome_name(nc.outcome),
                nc.profile ? nc.profile->name : "-");
    // The other catalog's family is unknown, in each catalog's own code.
    s = kfam_capability("scale_ok", KFAM_PLATFORM_XDNA2, KFAM_EXECUTION_MODE_ONBOARD,
                        KFAM_CONTRACT_KERNEL, &kc);
    std::printf("kfam unknown %d %s\n", (int)s, kfam_status_name(s));
    s = npuops_capability("add_bf16_1024", NPUOPS_PLATFORM_NPU, NPUOPS_EXECUTION_MODE_ONBOARD,
                          NPUOPS_CONTRACT_KERNEL, &nc);
    std::printf("npuops unknown %d %s\n", (int)s, npuops_status_name(s));

    // Admission of one artifact of each.
    std::string kmeta = slurp(argv[1]), nmeta = slurp(argv[3]);
    kfam_admission ka;
    std::memset(&ka, 0, sizeof ka);
    ka.struct_size = sizeof ka;
    s = kfam_admit(kmeta.data(), kmeta.size(), argv[2], &ka);
    std::printf("kfam admit %d %s %s\n", (int)s, kfam_admission_outcome_name(ka.outcome),
                ka.family ? ka.family->name : "-");
    npuops_admission na;
    std::memset(&na, 0, sizeof na);
    na.struct_size = sizeof na;
    s = npuops_admit(nmeta.data(), nmeta.size(), argv[4], &na);
    std::printf("npuops admit %d %s %s\n", (int)s, npuops_admission_outcome_name(na.outcome),
                na.family ? na.family->name : "-");
    // kfam's artifact is not the team's.
    s = npuops_admit(kmeta.data(), kmeta.size(), argv[2], &na);
    std::printf("npuops admit kfam's %d %s\n", (int)s, npuops_admission_outcome_name(na.outcome));

    // Call validation.
    const kfam_family *kf = nullptr;
    kfam_find_family("add_bf16_1024", &kf);
    const int64_t kshape[1] = {1024};
    kfam_tensor_arg kt[3];
    for (int i = 0; i < 3; ++i) {
        describe(kt[i], KFAM_DTYPE_BF16, KFAM_STORAGE_FORMAT_ND, kshape, 1, 2048, 0x1000u * (uint64_t)(i + 1));
    }
    kfam_call_error ke;
    std::memset(&ke, 0, sizeof ke);
    ke.struct_size = sizeof ke;
    s = kfam_validate_call(kf, kt, 3, nullptr, 0, &ke);
    std::printf("kfam call %d %s\n", (int)s, kfam_call_rule_name(ke.rule));

    const npuops_family *nf = nullptr;
    npuops_find_family("scale_ok", &nf);
    const int64_t nshape[2] = {64, 128};
    npuops_tensor_arg nt[2];
    describe(nt[0], NPUOPS_DTYPE_FP16, NPUOPS_STORAGE_FORMAT_ND, nshape, 2, 64 * 128 * 2, 0x10000u);
    describe(nt[1], NPUOPS_DTYPE_FP16, NPUOPS_STORAGE_FORMAT_ND, nshape, 2, 64 * 128 * 2, 0x20000u);
    npuops_call_error ne;
    std::memset(&ne, 0, sizeof ne);
    ne.struct_size = sizeof ne;
    s = npuops_validate_call(nf, nt, 2, nullptr, 0, &ne);
    std::printf("npuops call %d %s\n", (int)s, npuops_call_rule_name(ne.rule));
    describe(nt[1], NPUOPS_DTYPE_FP32, NPUOPS_STORAGE_FORMAT_ND, nshape, 2, 64 * 128 * 4, 0x20000u);
    s = npuops_validate_call(nf, nt, 2, nullptr, 0, &ne);
    std::printf("npuops bad call %d %s param %d\n", (int)s, npuops_call_rule_name(ne.rule),
                (int)ne.param_index);
    // A record of one catalog handed to the other's library is refused.
    s = npuops_validate_call(reinterpret_cast<const npuops_family *>(kf), nt, 2, nullptr, 0, &ne);
    std::printf("npuops foreign record %d %s\n", (int)s, npuops_status_name(s));
    return 0;
}
