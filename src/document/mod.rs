//! What every engine shares, whatever the document's type and wherever it
//! comes from: for now the run's [`memory`], which every holder of every
//! engine and every source draws from.

pub mod memory;
