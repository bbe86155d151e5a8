//! The shared vocabulary's closed sets (workload, scenario, protocol, flag), written one way: the
//! [`vocabulary!`](macro@crate::vocabulary) macro gives each its `ALL`, names, `Display` and `FromStr`,
//! and a name that is none of them is an [`UnknownName`] listing the known ones.

/// A name that is not one of the known ones; the message lists those.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {name:?} (known: {known})")]
pub struct UnknownName {
    pub kind: &'static str,
    pub name: String,
    pub known: String,
}

impl UnknownName {
    pub fn new(kind: &'static str, name: &str, known: &[&str]) -> Self {
        Self {
            kind,
            name: name.to_string(),
            known: known.join(", "),
        }
    }
}

/// Implements, for a fieldless enum, `ALL` (report order), `name`, `parse` (an `Option`),
/// `names`, `Display` (the name) and `FromStr` (an [`UnknownName`] listing the
/// known names). The names are the on-disk strings: changing one changes every document.
#[macro_export]
macro_rules! vocabulary {
    ($ty:ident, $kind:literal, { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every member, in report order.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            /// The name used on the command line, in `subject.toml` and in documents.
            pub const fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }

            /// The member of a name, if it is one.
            pub fn parse(name: &str) -> Option<Self> {
                Self::ALL.into_iter().find(|m| m.name() == name)
            }

            /// Every name, in report order.
            pub fn names() -> Vec<&'static str> {
                Self::ALL.iter().map(|m| m.name()).collect()
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::UnknownName;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s).ok_or_else(|| $crate::UnknownName::new($kind, s, &Self::names()))
            }
        }
    };
}
