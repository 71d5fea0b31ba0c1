//! A flow's table of a model (`[flows.cmhn]`, `[flows.mip4]`, ...): the
//! model's settings themselves (a serde struct of the model, its field
//! names the keys, its `validate` the check) and the few keys that only
//! the scenario can resolve (names of cells and interfaces, the times of
//! a scripted move). A new field of the model's settings is a key of the
//! table without any change here.

use std::ops::{Deref, DerefMut};

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The keys of a table that the scenario resolves, by name (the others
/// are the model's).
pub trait ScenarioKeys {
    const KEYS: &'static [&'static str];
}

/// A model's table in a flow: `scenario` holds the keys of `S::KEYS`,
/// `model` every other key. Reads as the model's settings (`Deref`,
/// `DerefMut`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelTable<S, M> {
    pub scenario: S,
    pub model: M,
}

impl<S, M> Deref for ModelTable<S, M> {
    type Target = M;

    fn deref(&self) -> &M {
        &self.model
    }
}

impl<S, M> DerefMut for ModelTable<S, M> {
    fn deref_mut(&mut self) -> &mut M {
        &mut self.model
    }
}

impl<'de, S, M> Deserialize<'de> for ModelTable<S, M>
where
    S: ScenarioKeys + DeserializeOwned,
    M: DeserializeOwned,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut model = toml::Table::deserialize(d)?;
        let mut scenario = toml::Table::new();
        for k in S::KEYS {
            if let Some(v) = model.remove(*k) {
                scenario.insert((*k).to_string(), v);
            }
        }
        Ok(ModelTable {
            scenario: S::deserialize(toml::Value::Table(scenario)).map_err(D::Error::custom)?,
            model: M::deserialize(toml::Value::Table(model)).map_err(D::Error::custom)?,
        })
    }
}

impl<S: Serialize, M: Serialize> Serialize for ModelTable<S, M> {
    fn serialize<Z: Serializer>(&self, z: Z) -> Result<Z::Ok, Z::Error> {
        use serde::ser::Error;
        let table = |v: Result<toml::Value, toml::ser::Error>| match v {
            Ok(toml::Value::Table(t)) => Ok(t),
            other => Err(Z::Error::custom(format!("not a table: {other:?}"))),
        };
        let mut t = table(toml::Value::try_from(&self.scenario))?;
        t.extend(table(toml::Value::try_from(&self.model))?);
        t.serialize(z)
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{REFERENCE_BASELINES, Scenario};

    #[test]
    fn a_scenario_goes_through_its_canonical_text_unchanged() {
        // A scenario written back as TOML and read again must keep its
        // model tables (a runner may be handed that text). The SCTP table
        // is written whole, so it comes back with every key given: the
        // text, not the `given` set, is what must not move.
        let s: Scenario = toml::from_str(REFERENCE_BASELINES).unwrap();
        let text = toml::to_string(&s).unwrap();
        let back: Scenario = toml::from_str(&text).unwrap();
        assert_eq!(toml::to_string(&back).unwrap(), text);
        assert_eq!(back.flows.len(), s.flows.len());
        for (b, a) in back.flows.iter().zip(&s.flows) {
            assert_eq!(b.mip4, a.mip4, "{}", a.name);
            assert_eq!(b.mip6, a.mip6, "{}", a.name);
            assert_eq!(b.fmip6, a.fmip6, "{}", a.name);
            assert_eq!(b.handoff, a.handoff, "{}", a.name);
            assert_eq!(b.cmhn, a.cmhn, "{}", a.name);
            assert_eq!(b.sctp.association, a.sctp.association, "{}", a.name);
        }
        assert!(text.contains("home_cell") && text.contains("advert_interval_ms"));
    }
}
