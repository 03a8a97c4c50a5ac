//! Custom slash commands in the input box: the composer lists them in the
//! slash popup. Discovery, reading (through `orbit_untrusted`), front
//! matter and expansion belong to `orbit-commands`, the one implementation
//! `-p`, the SDK and the interactive UI share; this module re-exports what
//! the composer and the UI use.

pub use orbit_commands::{
    COMMAND_FILE_MAX_BYTES, CommandSet, CommandSources, CustomCommand, Scope, load_custom_commands,
};
