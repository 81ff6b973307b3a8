//! How a [`DensityNode`] reads and writes in presets: as its operation, like
//! `Clamp(input: Fbm(scale: 0.01), low: -0.3, high: 0.55)`, its inputs first, then the fields
//! [`DensityOp::fields`] lists, then `enabled: false` when the node is off. Fields a preset leaves
//! out take their defaults unless the operation requires them.

use std::fmt;

use serde::de::{self, DeserializeSeed, EnumAccess, MapAccess, VariantAccess, Visitor};
use serde::ser::{self, SerializeStructVariant};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{DensityNode, DensityOp, FieldValue, FunctionName, Shape};

const ENABLED: &str = "enabled";

impl Serialize for DensityNode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let names = self.op.input_names();
        if names.len() != self.inputs.len() {
            return Err(ser::Error::custom(format!(
                "{} takes {} inputs, not {}",
                self.op.kind(),
                names.len(),
                self.inputs.len()
            )));
        }
        let mut op = self.op;
        let mut fields = 0;
        op.fields(&mut |_| fields += 1);
        let mut node = serializer.serialize_struct_variant(
            "DensityNode",
            op.index(),
            op.kind(),
            names.len() + fields + usize::from(!self.enabled),
        )?;
        for (name, input) in names.iter().zip(&self.inputs) {
            node.serialize_field(name, input)?;
        }
        let mut result = Ok(());
        op.fields(&mut |field| {
            if result.is_err() {
                return;
            }
            result = match field.value {
                FieldValue::Number { value, .. } => node.serialize_field(field.name, &*value),
                FieldValue::Whole { value, .. } | FieldValue::Choice { value, .. } => {
                    node.serialize_field(field.name, &*value)
                }
                FieldValue::SeedOffset { value, .. } => node.serialize_field(field.name, &*value),
                FieldValue::Shape(value) => node.serialize_field(field.name, &*value),
                FieldValue::Name(value) => node.serialize_field(field.name, value.as_str()),
            };
        });
        result?;
        if !self.enabled {
            node.serialize_field(ENABLED, &false)?;
        }
        node.end()
    }
}

impl<'de> Deserialize<'de> for DensityNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_enum("DensityNode", DensityOp::KINDS, NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = DensityNode;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a density node, one of {}", DensityOp::KINDS.join(", "))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<DensityNode, A::Error> {
        let (op, variant) = data.variant_seed(KindSeed)?;
        variant.struct_variant(&[], FieldsVisitor { op })
    }
}

/// Reads an operation's name into its template.
struct KindSeed;

impl<'de> DeserializeSeed<'de> for KindSeed {
    type Value = DensityOp;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<DensityOp, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KindSeed {
    type Value = DensityOp;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the name of a density operation")
    }

    fn visit_str<E: de::Error>(self, kind: &str) -> Result<DensityOp, E> {
        DensityOp::template(kind).ok_or_else(|| E::unknown_variant(kind, DensityOp::KINDS))
    }

    fn visit_u64<E: de::Error>(self, index: u64) -> Result<DensityOp, E> {
        usize::try_from(index)
            .ok()
            .and_then(|i| DensityOp::KINDS.get(i))
            .and_then(|kind| DensityOp::template(kind))
            .ok_or_else(|| E::custom(format!("no density operation number {index}")))
    }
}

/// Reads a node's inputs and fields, in any order.
struct FieldsVisitor {
    op: DensityOp,
}

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = DensityNode;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the inputs and fields of {}", self.op.kind())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DensityNode, A::Error> {
        let mut op = self.op;
        let names = op.input_names();
        let mut inputs: Vec<Option<DensityNode>> = names.iter().map(|_| None).collect();
        let mut enabled = None;
        let mut seen: Vec<&'static str> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if let Some(k) = names.iter().position(|name| *name == key) {
                if inputs[k].is_some() {
                    return Err(de::Error::duplicate_field(names[k]));
                }
                inputs[k] = Some(map.next_value()?);
            } else if key == ENABLED {
                if enabled.is_some() {
                    return Err(de::Error::duplicate_field(ENABLED));
                }
                enabled = Some(map.next_value()?);
            } else {
                let mut found = None;
                let mut result = Ok(());
                op.fields(&mut |field| {
                    if field.name != key {
                        return;
                    }
                    found = Some(field.name);
                    result = match field.value {
                        FieldValue::Number { value, .. } => {
                            map.next_value().map(|v: f64| *value = v)
                        }
                        FieldValue::Whole { value, .. } | FieldValue::Choice { value, .. } => {
                            map.next_value().map(|v: u32| *value = v)
                        }
                        FieldValue::SeedOffset { value, .. } => {
                            map.next_value().map(|v: i64| *value = v)
                        }
                        FieldValue::Shape(value) => map.next_value().map(|v: Shape| *value = v),
                        FieldValue::Name(value) => map.next_value().and_then(|v: String| {
                            *value = FunctionName::new(&v).map_err(de::Error::custom)?;
                            Ok(())
                        }),
                    };
                });
                let Some(name) = found else {
                    let mut expected: Vec<&str> = names.to_vec();
                    op.fields(&mut |field| expected.push(field.name));
                    expected.push(ENABLED);
                    return Err(de::Error::custom(format!(
                        "{} has no field `{key}`; its fields are {}",
                        op.kind(),
                        expected.join(", ")
                    )));
                };
                if seen.contains(&name) {
                    return Err(de::Error::duplicate_field(name));
                }
                seen.push(name);
                result?;
            }
        }
        let mut missing = None;
        op.fields(&mut |field| {
            if missing.is_none() && field.required && !seen.contains(&field.name) {
                missing = Some(field.name);
            }
        });
        if let Some(name) = missing {
            return Err(de::Error::missing_field(name));
        }
        let mut read = Vec::with_capacity(names.len());
        for (name, input) in names.iter().zip(inputs) {
            read.push(input.ok_or_else(|| de::Error::missing_field(name))?);
        }
        Ok(DensityNode {
            enabled: enabled.unwrap_or(true),
            op,
            inputs: read,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Abs, Clamp, Fbm, Shape, Warp};
    use super::*;

    fn read(text: &str) -> Result<DensityNode, ron::error::SpannedError> {
        ron::from_str(text)
    }

    #[test]
    fn presets_written_by_the_first_release_still_read() {
        let node = read(
            "Clamp(input: Warp(input: Fbm(scale: 0.01), strength: 25.0, scale: 0.006, \
             enabled: false), low: -0.3, high: 0.55)",
        )
        .unwrap();
        assert_eq!(
            node.op,
            DensityOp::Clamp(Clamp {
                low: -0.3,
                high: 0.55
            })
        );
        let warp = &node.inputs[0];
        assert!(!warp.enabled);
        assert_eq!(
            warp.op,
            DensityOp::Warp(Warp {
                seed_offset: 0,
                levels: 1,
                strength: 25.0,
                scale: 0.006,
                octaves: 3,
            })
        );
        assert_eq!(
            warp.inputs[0].op,
            DensityOp::Fbm(Fbm {
                seed_offset: 0,
                scale: 0.01,
                octaves: 4,
                persistence: 0.5,
                lacunarity: 2.0,
                shape: Shape::Normal,
            })
        );
    }

    #[test]
    fn nodes_write_their_inputs_then_fields_and_the_switch_only_when_off() {
        let mut node = DensityNode::new(Abs {}, [DensityNode::constant(0.5)]);
        assert_eq!(
            ron::to_string(&node).unwrap(),
            "Abs(input:Constant(value:0.5))"
        );
        node.enabled = false;
        let text = ron::to_string(&node).unwrap();
        assert_eq!(text, "Abs(input:Constant(value:0.5),enabled:false)");
        assert_eq!(read(&text).unwrap(), node);
    }

    #[test]
    fn bad_nodes_are_refused_with_a_reason() {
        let message = |text: &str| read(text).unwrap_err().to_string();
        assert!(
            message("Fbm(octaves: 3)").contains("scale"),
            "missing required field"
        );
        assert!(message("Abs()").contains("input"), "missing input");
        assert!(message("Fbm(scale: 0.1, sclae: 3)").contains("sclae"));
        assert!(message("Fbm(scale: 0.1, scale: 0.2)").contains("scale"));
        assert!(message("Blur(radius: 3)").contains("Blur"));
        assert!(
            message("Abs(input: Constant(value: 1.0), input: Constant(value: 2.0))")
                .contains("input")
        );
    }
}
