//! placeholder: the result pipeline (R1–R4) and the per-message budget
