//! [`StatePatch`]: how a channel's optimistic state changed, below the top level where that is
//! cheap to say, so a render layer (the wasm `Subscription`) updates only what changed instead
//! of rebuilding whole fields.

/// One step of a [`StatePatch`]. Values are not carried: a consumer reads them from the
/// mirror's state after the batch (except appended text, which is exactly the delta).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOp {
    /// A top-level field changed in an unspecified way: take it whole from the state.
    Field(&'static str),
    /// `activeTurn.responseParts[index].content` grew by `text` (a markdown or reasoning delta).
    AppendPartText {
        /// Index of the response part.
        index: usize,
        /// The text appended.
        text: String,
    },
    /// `activeTurn.responseParts[index]` changed: take it from the state.
    ReplacePart {
        /// Index of the response part.
        index: usize,
    },
    /// `activeTurn.responseParts` grew: the parts from `from` on are new.
    PushParts {
        /// Index of the first new part.
        from: usize,
    },
    /// `turns` grew: the turns from `from` on are new.
    PushTurns {
        /// Index of the first new turn.
        from: usize,
    },
}

/// The changes of one update of a mirror's optimistic state, in order. Applying them to the
/// previous rendering, reading values from the new state, gives the new rendering.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatePatch {
    /// The steps, in order.
    pub ops: Vec<PatchOp>,
}

impl StatePatch {
    /// A patch that replaces the named top-level fields whole.
    pub fn fields(names: impl IntoIterator<Item = &'static str>) -> StatePatch {
        StatePatch {
            ops: names.into_iter().map(PatchOp::Field).collect(),
        }
    }

    /// Whether the patch changes nothing.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}
