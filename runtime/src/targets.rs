//! A catalog's declared targets: its platforms, backends, runtimes and
//! execution modes (`[[platforms]]`, ... of `abi.toml`).
//!
//! Each catalog declares its own, so they are values rather than enums: a
//! member is its ABI code and its manifest name, and the catalog's
//! generated tables define one constant per member (`platforms::A2A3`) and
//! list them all in its [`Targets`]. The library itself knows no member.

macro_rules! target {
    ($(#[$doc:meta])* $name:ident, $find:ident, $by_code:ident, $list:ident) => {
        $(#[$doc])*
        ///
        /// Two members are equal when both their code and their name are.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name {
            code: i32,
            name: &'static str,
        }

        impl $name {
            /// The member with ABI code `code`, spelled `name` in the
            /// manifest. Generated tables define one constant per declared
            /// member with this.
            pub const fn new(code: i32, name: &'static str) -> Self {
                $name { code, name }
            }

            /// The stable numeric code (the same in C and Python).
            pub const fn code(self) -> i32 {
                self.code
            }

            /// The manifest spelling.
            pub const fn as_str(self) -> &'static str {
                self.name
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.name)
            }
        }

        impl Targets {
            #[doc = concat!("The declared ", stringify!($list), " member spelled `name` in the manifest.")]
            pub fn $find(&self, name: &str) -> Option<$name> {
                self.$list.iter().copied().find(|m| m.name == name)
            }

            #[doc = concat!("The declared ", stringify!($list), " member with ABI code `code`.")]
            pub fn $by_code(&self, code: i32) -> Option<$name> {
                self.$list.iter().copied().find(|m| m.code == code)
            }
        }
    };
}

/// Every declared member of a catalog, each list in code order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Targets {
    pub platforms: &'static [Platform],
    pub backends: &'static [Backend],
    pub runtimes: &'static [Runtime],
    pub execution_modes: &'static [ExecutionMode],
}

target!(
    /// Hardware platform an artifact targets.
    Platform,
    platform,
    platform_by_code,
    platforms
);
target!(
    /// Compiler backend that produced an artifact.
    Backend,
    backend,
    backend_by_code,
    backends
);
target!(
    /// Runtime that launches an artifact.
    Runtime,
    runtime,
    runtime_by_code,
    runtimes
);
target!(
    /// Whether an artifact runs on a simulator or on the device.
    ExecutionMode,
    execution_mode,
    execution_mode_by_code,
    execution_modes
);

#[cfg(test)]
mod tests {
    use super::*;

    const SIM: ExecutionMode = ExecutionMode::new(0, "sim");
    const TARGETS: Targets = Targets {
        platforms: &[Platform::new(3, "npu"), Platform::new(7, "gpu")],
        backends: &[],
        runtimes: &[],
        execution_modes: &[SIM],
    };

    #[test]
    fn members_are_found_by_name_and_code() {
        assert_eq!(TARGETS.platform("gpu"), Some(Platform::new(7, "gpu")));
        assert_eq!(
            TARGETS.platform_by_code(3).map(Platform::as_str),
            Some("npu")
        );
        assert_eq!(TARGETS.platform("tpu"), None);
        assert_eq!(TARGETS.platform_by_code(0), None);
        assert_eq!(TARGETS.execution_mode("sim"), Some(SIM));
        assert_eq!(TARGETS.backend_by_code(0), None);
        assert_eq!(SIM.to_string(), "sim");
    }
}
