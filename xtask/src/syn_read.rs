//! Reading the definition's Rust source with `syn`: serde attributes, doc comments, field
//! types, and the values hand-written impls spell out (an open enum's `serialize_str` calls,
//! a bitset's `const` flags). `codegen_v1.rs` maps what they return to the model.

use crate::model::Ty;
use std::collections::BTreeSet;
use syn::{Attribute, GenericArgument, PathArguments, Type};

/// The serde attributes of an item, a field or a variant that the mapping reads.
#[derive(Default)]
pub(crate) struct Serde {
    pub(crate) rename: Option<String>,
    pub(crate) rename_all: Option<String>,
    pub(crate) tag: Option<String>,
    pub(crate) untagged: bool,
    pub(crate) transparent: bool,
    pub(crate) skip_serializing_if: bool,
    pub(crate) with_functions: bool,
}

pub(crate) fn serde_attrs(attrs: &[Attribute], at: &str) -> Result<Serde, String> {
    let mut serde = Serde::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let string =
                || -> syn::Result<String> { Ok(meta.value()?.parse::<syn::LitStr>()?.value()) };
            match key.as_str() {
                "rename" => serde.rename = Some(string()?),
                "rename_all" => serde.rename_all = Some(string()?),
                "tag" => serde.tag = Some(string()?),
                "untagged" => serde.untagged = true,
                "transparent" => serde.transparent = true,
                "default" => {}
                "skip_serializing_if" => {
                    let function = string()?;
                    if function != "Option::is_none" {
                        return Err(
                            meta.error(format!("unsupported skip_serializing_if {function}"))
                        );
                    }
                    serde.skip_serializing_if = true;
                }
                "serialize_with" | "deserialize_with" => {
                    string()?;
                    serde.with_functions = true;
                }
                other => return Err(meta.error(format!("unsupported serde attribute `{other}`"))),
            }
            Ok(())
        })
        .map_err(|e| format!("{at}: {e}"))?;
    }
    Ok(serde)
}

pub(crate) fn derives(attrs: &[Attribute]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(last) = meta.path.segments.last() {
                out.insert(last.ident.to_string());
            }
            Ok(())
        });
    }
    out
}

/// The doc comment, one line per `///` line (the one space after `///` removed).
pub(crate) fn doc(attrs: &[Attribute]) -> String {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).to_string())
        .collect();
    lines.join("\n")
}

/// `turn_id` -> `turnId` (serde's `camelCase` of a field name).
pub(crate) fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// A field's type: (type, `Option`, boxed).
pub(crate) fn field_type(ty: &Type, at: &str) -> Result<(Ty, bool, bool), String> {
    if let Some(inner) = generic_arg(ty, "Option") {
        let (ty, optional, boxed) = field_type(inner, at)?;
        if optional {
            return Err(format!("{at}: nested Option"));
        }
        return Ok((ty, true, boxed));
    }
    if let Some(inner) = generic_arg(ty, "Box") {
        return Ok((plain_type(inner, at)?, false, true));
    }
    Ok((plain_type(ty, at)?, false, false))
}

/// A type inside a field (a `Box` in a collection adds nothing: the collection is indirect).
pub(crate) fn plain_type(ty: &Type, at: &str) -> Result<Ty, String> {
    let Type::Path(path) = ty else {
        return Err(format!("{at}: unsupported type"));
    };
    let last = path
        .path
        .segments
        .last()
        .ok_or_else(|| format!("{at}: empty type path"))?;
    let name = last.ident.to_string();
    Ok(match name.as_str() {
        "String" | "Uri" => Ty::String,
        "bool" => Ty::Bool,
        "f64" => Ty::F64,
        "u64" => Ty::U64,
        "u32" => Ty::U32,
        // JSON numbers; `i32` only for JSON-RPC error codes.
        "i64" | "i32" => Ty::I64,
        "AnyValue" | "Value" => Ty::Any,
        "JsonObject" => Ty::Object,
        "Vec" => Ty::Vec(Box::new(plain_type(
            generic_arg(ty, "Vec").ok_or_else(|| format!("{at}: Vec without an element"))?,
            at,
        )?)),
        "Box" => plain_type(generic_arg(ty, "Box").unwrap_or(ty), at)?,
        "HashMap" | "BTreeMap" => {
            let PathArguments::AngleBracketed(args) = &last.arguments else {
                return Err(format!("{at}: map without arguments"));
            };
            let types: Vec<&Type> = args
                .args
                .iter()
                .filter_map(|a| match a {
                    GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect();
            match types.as_slice() {
                [key, value] if plain_type(key, at)? == Ty::String => {
                    Ty::Map(Box::new(plain_type(value, at)?))
                }
                _ => return Err(format!("{at}: a map must have string keys")),
            }
        }
        "Option" | "i8" | "i16" | "u8" | "u16" | "f32" | "usize" | "isize" => {
            return Err(format!("{at}: unsupported type {name}"))
        }
        _ if last.arguments.is_empty() => Ty::Named(name),
        _ => return Err(format!("{at}: unsupported generic type {name}")),
    })
}

/// `T` of `Outer<T>`, when `ty` is an `Outer`.
fn generic_arg<'a>(ty: &'a Type, outer: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != outer {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// The wire values of an open string enum: the `serialize_str` literal of each `Self::X` arm
/// of its hand-written `Serialize`.
pub(crate) fn serialized_values(imp: &syn::ItemImpl) -> Vec<(String, String)> {
    let mut values = Vec::new();
    for item in &imp.items {
        let syn::ImplItem::Fn(f) = item else { continue };
        for stmt in &f.block.stmts {
            let syn::Stmt::Expr(syn::Expr::Match(m), _) = stmt else {
                continue;
            };
            for arm in &m.arms {
                let syn::Pat::Path(p) = &arm.pat else {
                    continue;
                };
                let Some(variant) = p.path.segments.last() else {
                    continue;
                };
                if let Some(value) = serialized_str(&arm.body) {
                    values.push((variant.ident.to_string(), value));
                }
            }
        }
    }
    values
}

/// The literal of `serializer.serialize_str("...")`, also inside a block.
fn serialized_str(expr: &syn::Expr) -> Option<String> {
    match expr {
        syn::Expr::MethodCall(call) if call.method == "serialize_str" => match call.args.first() {
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })) => Some(s.value()),
            _ => None,
        },
        syn::Expr::Block(block) => match block.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => serialized_str(inner),
            _ => None,
        },
        _ => None,
    }
}

/// The `pub const NAME: Self = Self(n)` flags of a bitset's inherent impl.
pub(crate) fn bitset_flags(imp: &syn::ItemImpl) -> Vec<(String, u32, String)> {
    let mut flags = Vec::new();
    for item in &imp.items {
        let syn::ImplItem::Const(c) = item else {
            continue;
        };
        let syn::Expr::Call(call) = &c.expr else {
            continue;
        };
        if let Some(syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        })) = call.args.first()
        {
            if let Ok(value) = n.base10_parse::<u32>() {
                flags.push((c.ident.to_string(), value, doc(&c.attrs)));
            }
        }
    }
    flags
}

/// The type an impl is for.
pub(crate) fn impl_target(imp: &syn::ItemImpl) -> Option<String> {
    let Type::Path(p) = &*imp.self_ty else {
        return None;
    };
    p.path.segments.last().map(|s| s.ident.to_string())
}
