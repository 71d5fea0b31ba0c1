//! Tests of the chunk specs read from the value tree.

use super::*;

fn word(s: &str) -> Value {
    Value::Word(s.into())
}

#[test]
fn data_flags_letters_and_numbers() {
    let c = chunk_from(
        1,
        "DATA",
        &[
            Item::Assign("flgs".into(), word("BE")),
            Item::Assign("len".into(), word("1016")),
            Item::Assign("tsn".into(), word("1")),
        ],
    )
    .unwrap();
    match c {
        ChunkSpec::Data {
            flags, len, sid, ..
        } => {
            assert_eq!(flags, Field::Is(3));
            assert_eq!(len, Field::Is(1016));
            assert_eq!(sid, Field::Any);
        }
        other => panic!("{other:?}"),
    }
    let t = chunk_from(1, "ABORT", &[Item::Assign("flgs".into(), word("T"))]).unwrap();
    assert_eq!(t.flags(), &Field::Is(1));
    assert!(chunk_from(1, "ABORT", &[Item::Assign("flgs".into(), word("X"))]).is_err());
}

#[test]
fn unknown_fields_and_names_are_errors() {
    assert!(chunk_from(1, "DATA", &[Item::Assign("foo".into(), word("1"))]).is_err());
    assert!(chunk_from(1, "NOPE", &[]).is_err());
    assert!(
        param_from(
            1,
            "IPV4_ADDRESS",
            &[Item::Assign("addr".into(), word("::1"))]
        )
        .is_err()
    );
    assert!(
        chunk_from(
            1,
            "SACK",
            &[Item::Assign("cum_tsn".into(), word("99999999999"))]
        )
        .is_err()
    );
}

#[test]
fn init_parameters_and_trailing_ellipsis() {
    let c = chunk_from(
        3,
        "INIT_ACK",
        &[
            Item::Assign("tag".into(), word("2")),
            Item::Bare(Value::Spec(
                "STATE_COOKIE".into(),
                vec![
                    Item::Assign("len".into(), word("4")),
                    Item::Assign("val".into(), Value::Any),
                ],
            )),
            Item::Bare(Value::Any),
        ],
    )
    .unwrap();
    match c {
        ChunkSpec::InitAck(i) => {
            assert!(i.params.more);
            assert_eq!(
                i.params.items,
                vec![ParamSpec::StateCookie {
                    len: Field::Is(4),
                    val: Field::Any
                }]
            );
        }
        other => panic!("{other:?}"),
    }
}
