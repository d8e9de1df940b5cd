// A team's native runtime over two catalogs of its own, each a library
// kfam_add_catalog() built from its manifest with this project's compiler:
// xdnaops (its own platform xdna3 and status codes) and npuops.
//
//   app XDNAOPS_META XDNAOPS_SHA256
//
// XDNAOPS_META is the compiled_meta.json of example_add's receipt.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <npuops/npuops.h>
#include <xdnaops/xdnaops.h>

static std::string slurp(const char *path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: app XDNAOPS_META XDNAOPS_SHA256\n");
        return 2;
    }
    char why[512];
    int32_t s = xdnaops_check_catalog(XDNAOPS_CATALOG_NAME, XDNAOPS_CATALOG_DIGEST, why, sizeof why,
                                      nullptr);
    std::printf("check xdnaops %d %s\n", (int)s, xdnaops_status_name(s));
    s = npuops_check_catalog(NPUOPS_CATALOG_NAME, NPUOPS_CATALOG_DIGEST, why, sizeof why, nullptr);
    std::printf("check npuops %d %s\n", (int)s, npuops_status_name(s));
    // A header of another catalog is refused, both catalogs named.
    s = xdnaops_check_catalog(NPUOPS_CATALOG_NAME, NPUOPS_CATALOG_DIGEST, why, sizeof why, nullptr);
    std::printf("check other %d %s\n", (int)s, why);

    // Every family the library approves.
    const xdnaops_table *t = nullptr;
    xdnaops_library_table(&t);
    std::printf("families %u:", t->family_count);
    for (uint32_t i = 0; i < t->family_count; ++i) {
        std::printf(" %s", XDNAOPS_ELEMENT(xdnaops_family, t->families, i)->name);
    }
    std::printf("\n");

    // Capability on the team's platform, in the team's codes.
    xdnaops_capability_result c{};
    c.struct_size = sizeof c;
    s = xdnaops_capability("example_add", XDNAOPS_PLATFORM_XDNA3, XDNAOPS_EXECUTION_MODE_SIM,
                           XDNAOPS_CONTRACT_KERNEL, &c);
    std::printf("capability %d %s %s\n", (int)s, xdnaops_capability_outcome_name(c.outcome),
                c.profile ? c.profile->name : "-");
    s = xdnaops_capability("example_add", XDNAOPS_PLATFORM_XDNA3, XDNAOPS_EXECUTION_MODE_ONBOARD,
                           XDNAOPS_CONTRACT_KERNEL, &c);
    xdnaops_capability_message("example_add", XDNAOPS_PLATFORM_XDNA3,
                               XDNAOPS_EXECUTION_MODE_ONBOARD, XDNAOPS_CONTRACT_KERNEL, why,
                               sizeof why, nullptr);
    std::printf("capability onboard %d %s\n", (int)s, why);
    s = xdnaops_capability("scale_ok", XDNAOPS_PLATFORM_XDNA3, XDNAOPS_EXECUTION_MODE_SIM,
                           XDNAOPS_CONTRACT_KERNEL, &c);
    std::printf("capability unknown %d %s\n", (int)s, xdnaops_status_name(s));
    npuops_capability_result n{};
    n.struct_size = sizeof n;
    s = npuops_capability("scale_ok", NPUOPS_PLATFORM_NPU, NPUOPS_EXECUTION_MODE_ONBOARD,
                          NPUOPS_CONTRACT_KERNEL, &n);
    std::printf("npuops capability %d %s\n", (int)s, npuops_capability_outcome_name(n.outcome));

    // Admission of the receipt's artifact.
    std::string meta = slurp(argv[1]);
    xdnaops_admission a{};
    a.struct_size = sizeof a;
    s = xdnaops_admit(meta.data(), meta.size(), argv[2], &a);
    std::printf("admit %d %s %s\n", (int)s, xdnaops_admission_outcome_name(a.outcome),
                a.family ? a.family->name : "-");
    s = xdnaops_admit(meta.data(), meta.size(), std::string(64, 'e').c_str(), &a);
    std::printf("admit other digest %d %s\n", (int)s, xdnaops_admission_outcome_name(a.outcome));

    // Call validation: rows = 4 of bf16 [rows, 1024]; then an fp16 rhs.
    const xdnaops_family *f = nullptr;
    xdnaops_find_family("example_add", &f);
    const int64_t shape[2] = {4, 1024};
    xdnaops_tensor_arg args[3];
    for (int i = 0; i < 3; ++i) {
        std::memset(&args[i], 0, sizeof args[i]);
        args[i].struct_size = sizeof args[i];
        args[i].dtype = XDNAOPS_DTYPE_BF16;
        args[i].format = XDNAOPS_STORAGE_FORMAT_ND;
        args[i].rank = 2;
        args[i].shape = shape;
        args[i].storage_bytes = 4 * 1024 * 2;
        args[i].storage = 0x100000u * (uint64_t)(i + 1);
    }
    xdnaops_call_error e{};
    e.struct_size = sizeof e;
    s = xdnaops_validate_call(f, args, 3, nullptr, 0, &e);
    std::printf("call %d %s\n", (int)s, xdnaops_call_rule_name(e.rule));
    args[1].dtype = XDNAOPS_DTYPE_FP16;
    s = xdnaops_validate_call(f, args, 3, nullptr, 0, &e);
    xdnaops_validate_call_message(f, args, 3, nullptr, 0, why, sizeof why, nullptr);
    std::printf("bad call %d %s param %d: %s\n", (int)s, xdnaops_call_rule_name(e.rule),
                (int)e.param_index, why);
    return 0;
}
