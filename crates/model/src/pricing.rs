//! Token prices, turning [`Usage`](orbit_protocol::Usage) into US dollars
//! (`total_cost_usd` of the result, `--max-budget-usd`): a thin view of
//! [`crate::catalog`], which holds every price. Kept so callers of
//! `orbit_model::pricing` keep working.

pub use crate::catalog::{Pricing as ModelPrice, cost_usd, price as model_price};
