//! What an operation kind requires of its tensor operands, declared as data
//! beside its payload record, as MLIR's ODS declares an op's operand
//! constraints: each operand's shape spelled in extent letters
//! (`["B", "H", "S", "D"]`), what each letter means and whether a call
//! must find it equal everywhere, which operands share a dtype, and the
//! relations between letters. One checker
//! (`check::operation::constraints`) enforces every kind's declaration;
//! the docs' operand tables print it.
//!
//! A letter is one extent: every axis spelled with it, in any operand,
//! holds the same value. A rule that a declaration cannot state (a payload
//! value tied to an extent: rope's `rotary_dim`) is its kind's own, in
//! `check::operation`, and [`Operands::rules`] names it for the docs.

use crate::codes::Code;

/// The operand constraints of one operation kind.
#[derive(Clone, Copy, Debug)]
pub struct Operands {
    /// The code every broken constraint is reported with.
    pub code: Code,
    /// The help line of a broken shape or dtype constraint: every
    /// operand's shape.
    pub help: &'static str,
    /// Each tensor operand, by the payload key that names it, in key order.
    pub tensors: &'static [Operand],
    /// What each letter of the shapes means, in the order its agreement
    /// is checked.
    pub extents: &'static [Letter],
    /// Operands that share a dtype, and of which class.
    pub dtypes: &'static [Dtypes],
    /// `(multiple, divisor)`: the first letter's extent is a multiple of
    /// the second's when both are static (grouped-query heads).
    pub divides: &'static [Divides],
    /// Rules of the kind that are not data (said in the docs), each one
    /// line; empty for a kind checked by its declaration alone.
    pub rules: &'static [&'static str],
}

/// One tensor operand.
#[derive(Clone, Copy, Debug)]
pub struct Operand {
    /// The payload key that names the parameter.
    pub key: &'static str,
    /// The kind writes it (`out` or `inout`); else it reads it (`in` or
    /// `inout`).
    pub written: bool,
    pub shape: Shape,
}

/// An operand's shape.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// Any rank: compared whole with the operands [`Shape::Like`] it.
    Any,
    /// One axis per letter.
    Axes(&'static [&'static str]),
    /// One or more leading axes, the same in every `Rows` operand (and
    /// named by symbols where a call must find them equal), then one axis
    /// per letter: activations `[.., K]`.
    Rows(&'static [&'static str]),
    /// The shape of the operand of that key.
    Like(&'static str),
    /// Decided by a rule of the kind's own (paged attention's cache
    /// layouts), which the text says for the docs; no declared constraint
    /// reads it.
    Rule(&'static str),
    /// Chosen by the value of a vocabulary key of the payload: its member
    /// spelling and the shape it gives (not itself chosen by a key). A
    /// payload that leaves the key out holds its first case's member
    /// (code 0).
    ByKey(&'static str, &'static [(&'static str, Shape)]),
}

/// One extent letter.
#[derive(Clone, Copy, Debug)]
pub struct Letter {
    pub letter: &'static str,
    /// How messages name it: `the head size D`.
    pub subject: &'static str,
    /// A call must find it equal in every operand, so it cannot be an
    /// anonymous `-1` (two are unrelated at call time): the symbol name a
    /// help line suggests. `None`: the kind does not need them equal in a
    /// call (the family's symbols may still tie them).
    pub tie: Option<&'static str>,
}

/// Operands that share one dtype.
#[derive(Clone, Copy, Debug)]
pub struct Dtypes {
    /// Operand keys; an optional operand that is absent is left out.
    pub members: &'static [&'static str],
    pub class: DtypeClass,
    /// Not required when the payload's vocabulary key holds that member
    /// (`("op", "cast")`).
    pub unless: Option<(&'static str, &'static str)>,
}

/// What a dtype group requires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtypeClass {
    /// One float dtype: the first member is float, then all agree.
    Float,
    /// Each member is int32 (index tensors).
    Int32,
    /// One dtype of any class.
    Same,
}

/// A letter whose extent is a multiple of another's, when both are static.
#[derive(Clone, Copy, Debug)]
pub struct Divides {
    pub multiple: &'static str,
    pub divisor: &'static str,
    /// What the extents count, in the message (`heads`).
    pub counts: &'static str,
    /// The help line.
    pub why: &'static str,
}

/// No operand constraint: a kind kfam does not cross-check (`custom`).
pub const UNCHECKED: Operands = Operands {
    code: Code::OperandKind,
    help: "",
    tensors: &[],
    extents: &[],
    dtypes: &[],
    divides: &[],
    rules: &[],
};

impl Operands {
    /// The operand of payload key `key`.
    pub fn operand(&self, key: &str) -> Option<&Operand> {
        self.tensors.iter().find(|o| o.key == key)
    }

    /// Operand `key`'s shape with [`Shape::ByKey`] chosen by `member` (the
    /// payload's member of a vocabulary key; its first case when `None`)
    /// and [`Shape::Like`] followed to a shape of letters: `Any`, `Axes`,
    /// `Rows`, `Rule`, or `Like` an operand of any rank.
    pub fn resolve(
        &self,
        key: &str,
        member: &dyn Fn(&str) -> Option<&'static str>,
    ) -> Option<Shape> {
        match self.operand(key)?.shape {
            Shape::Like(other) => match self.resolve(other, member)? {
                Shape::Any => Some(Shape::Like(other)),
                shape => Some(shape),
            },
            Shape::ByKey(k, cases) => {
                let chosen = member(k);
                cases
                    .iter()
                    .find(|(m, _)| chosen.is_none_or(|c| c == *m))
                    .or(cases.first())
                    .map(|(_, shape)| *shape)
            }
            shape => Some(shape),
        }
    }

    /// A shape as messages and the docs write it (Markdown): `` `[B, H, S, D]` ``,
    /// `` `[.., K]` ``, `any` or ``that of `query` ``.
    pub fn shape_words(&self, shape: Shape) -> String {
        match shape {
            Shape::Any => "any".to_owned(),
            Shape::Axes(a) => format!("`[{}]`", a.join(", ")),
            Shape::Rows(a) => format!("`[.., {}]`", a.join(", ")),
            Shape::Like(other) => format!("that of `{other}`"),
            Shape::Rule(text) => text.to_owned(),
            Shape::ByKey(k, cases) => {
                // Members that give the same shape are named together.
                let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
                for (m, shape) in cases {
                    let words = self.shape_words(*shape);
                    match groups.iter_mut().find(|g| g.0 == words) {
                        Some(g) => g.1.push(m),
                        None => groups.push((words, vec![m])),
                    }
                }
                groups
                    .iter()
                    .map(|(words, members)| {
                        let members: Vec<String> =
                            members.iter().map(|m| format!("`{m}`")).collect();
                        format!("{words} (`{k}` is {})", members.join(" or "))
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            }
        }
    }

    /// The shape of operand `key` as the docs show it ([`Self::shape_words`]).
    pub fn shape_text(&self, key: &str) -> String {
        self.operand(key)
            .map_or_else(String::new, |o| self.shape_words(o.shape))
    }
}
