//! The `Mutant` constant of a spec's Rust model: its ids as the spec's
//! `ASSUME Mutant \in {...}` spells them, read and printed.

/// Defines `pub enum Mutant` with `ALL`, `id()`, `from_id()` and
/// `FromStr`, and `UnknownMutant`, whose message lists the ids:
///
/// ```text
/// spec_mutants! {
///     spec "XskRx.tla", named "xsk-rx";
///     None => "none",
///     /// what the mutant breaks
///     XdpMissingFlush => "xdp-missing-flush",
/// }
/// ```
macro_rules! spec_mutants {
    (spec $spec:literal, named $named:literal;
     $( $(#[$doc:meta])* $v:ident => $id:literal ),+ $(,)?) => {
        /// Mutant: "none" or one of the mutant ids of the spec's ASSUME.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum Mutant {
            $( $(#[$doc])* $v, )+
        }

        impl Mutant {
            pub const ALL: [Mutant; [$($id),+].len()] = [$(Mutant::$v),+];

            /// The spec's string.
            pub fn id(self) -> &'static str {
                match self {
                    $( Mutant::$v => $id, )+
                }
            }

            pub fn from_id(s: &str) -> Option<Mutant> {
                Mutant::ALL.into_iter().find(|m| m.id() == s)
            }
        }

        /// An id that is not one of the spec's mutants.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct UnknownMutant(pub String);

        impl std::fmt::Display for UnknownMutant {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let ids: Vec<&str> = Mutant::ALL.iter().map(|m| m.id()).collect();
                write!(
                    f,
                    concat!("unknown ", $named, " mutant \"{}\": ", $spec, " knows {}"),
                    self.0,
                    ids.join(", ")
                )
            }
        }

        impl std::error::Error for UnknownMutant {}

        impl std::str::FromStr for Mutant {
            type Err = UnknownMutant;

            fn from_str(s: &str) -> Result<Mutant, UnknownMutant> {
                Mutant::from_id(s).ok_or_else(|| UnknownMutant(s.to_string()))
            }
        }
    };
}

pub(crate) use spec_mutants;
