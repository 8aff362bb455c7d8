//! Checks an `action:request`'s `params` against the action's `input` schema
//! before anything runs (seed 002 §4.5.1, §9.3.2). Only the JSON Schema keywords
//! the generated inputs use: `type` (object, string, integer, boolean, array),
//! `properties`, `required`, `additionalProperties: false`, `enum`, `maxLength`,
//! `minItems`, `maxItems`, `items`. The first problem is the answer, as the
//! `VALIDATION_ERROR`'s message and `details` (field, constraint).

use serde_json::{Value, json};

/// Why `params` does not fit: a message and the seed's `details` shape.
#[derive(Debug)]
pub struct Invalid {
    pub message: String,
    pub details: Value,
}

fn invalid(field: &str, constraint: &str, message: String) -> Invalid {
    Invalid {
        message,
        details: json!({"field": field, "constraint": constraint}),
    }
}

/// `params` checked against the object schema `schema`.
pub fn check(schema: &Value, params: &Value) -> Result<(), Invalid> {
    let Some(obj) = params.as_object() else {
        return Err(invalid("", "type", "params must be an object".to_string()));
    };
    let props = schema.get("properties").and_then(Value::as_object);
    for name in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if obj.get(name).is_none_or(Value::is_null) {
            return Err(invalid(
                name,
                "required",
                format!("Parameter '{name}' is required"),
            ));
        }
    }
    for (k, v) in obj {
        let Some(s) = props.and_then(|p| p.get(k)) else {
            let known: Vec<&str> = props
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            return Err(invalid(
                k,
                "additionalProperties",
                format!(
                    "Parameter '{k}' is not accepted; the action takes: {}",
                    known.join(", ")
                ),
            ));
        };
        if v.is_null() {
            continue;
        }
        value(k, s, v)?;
    }
    Ok(())
}

fn value(field: &str, s: &Value, v: &Value) -> Result<(), Invalid> {
    let ty = s.get("type").and_then(Value::as_str).unwrap_or("");
    let ok = match ty {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => true,
    };
    if !ok {
        return Err(invalid(
            field,
            "type",
            format!("Parameter '{field}' must be of type {ty}"),
        ));
    }
    if let Some(values) = s.get("enum").and_then(Value::as_array)
        && !values.contains(v)
    {
        let names: Vec<String> = values.iter().map(Value::to_string).collect();
        return Err(invalid(
            field,
            "enum",
            format!("Parameter '{field}' must be one of {}", names.join(", ")),
        ));
    }
    if let (Some(max), Some(text)) = (s.get("maxLength").and_then(Value::as_u64), v.as_str())
        && text.chars().count() as u64 > max
    {
        return Err(invalid(
            field,
            "maxLength",
            format!("Parameter '{field}' is longer than {max} characters"),
        ));
    }
    if let Some(items) = v.as_array() {
        let n = items.len() as u64;
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
            && n > max
        {
            return Err(invalid(
                field,
                "maxItems",
                format!("Parameter '{field}' has more than {max} items"),
            ));
        }
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && n < min
        {
            return Err(invalid(
                field,
                "minItems",
                format!("Parameter '{field}' needs at least {min} items"),
            ));
        }
        if let Some(item) = s.get("items") {
            for x in items {
                value(field, item, x)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_problem_is_named() {
        let s = json!({"type": "object", "properties": {
            "op_id": {"type": "string", "maxLength": 4},
            "n": {"type": "integer"},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "xs": {"type": "array", "items": {"type": "string"}, "maxItems": 1}
        }, "required": ["op_id"], "additionalProperties": false});
        let c = |p: Value| check(&s, &p).err().map(|e| e.details["constraint"].clone());
        assert_eq!(c(json!({"op_id": "ab"})), None);
        assert_eq!(c(json!({})), Some(json!("required")));
        assert_eq!(c(json!({"op_id": "abcde"})), Some(json!("maxLength")));
        assert_eq!(c(json!({"op_id": "a", "n": "3"})), Some(json!("type")));
        assert_eq!(c(json!({"op_id": "a", "kind": "c"})), Some(json!("enum")));
        assert_eq!(
            c(json!({"op_id": "a", "xs": ["x", "y"]})),
            Some(json!("maxItems"))
        );
        assert_eq!(
            c(json!({"op_id": "a", "zz": 1})),
            Some(json!("additionalProperties"))
        );
        assert_eq!(c(json!([1])), Some(json!("type")));
    }
}
