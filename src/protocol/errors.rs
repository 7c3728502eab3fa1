//! JSON-RPC and AHP error codes (`JsonRpcErrorCode` and `AhpErrorCode` in the schema).

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist or is not available.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters.
pub const INVALID_PARAMS: i64 = -32602;
/// Internal error.
pub const INTERNAL_ERROR: i64 = -32603;

/// The session URI is unknown.
pub const SESSION_NOT_FOUND: i64 = -32001;
/// The agent provider is unknown.
pub const PROVIDER_NOT_FOUND: i64 = -32002;
/// `createSession` with a URI already in use.
pub const SESSION_ALREADY_EXISTS: i64 = -32003;
/// The operation needs the session to be idle.
pub const TURN_IN_PROGRESS: i64 = -32004;
/// None of the offered protocol versions is supported; data: `UnsupportedProtocolVersionErrorData`.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32005;
/// Referenced content does not exist.
pub const CONTENT_NOT_FOUND: i64 = -32006;
/// Authentication is required; data: `AuthRequiredErrorData`.
pub const AUTH_REQUIRED: i64 = -32007;
/// A resource was not found.
pub const NOT_FOUND: i64 = -32008;
/// Access was denied; data: `PermissionDeniedErrorData`.
pub const PERMISSION_DENIED: i64 = -32009;
/// A resource already exists.
pub const ALREADY_EXISTS: i64 = -32010;

/// The JSON-RPC 2.0 codes (`JsonRpcErrorCode`), in the schema's order.
pub const JSON_RPC_ERROR_CODES: [i64; 5] = [
    PARSE_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    INVALID_PARAMS,
    INTERNAL_ERROR,
];

/// The AHP codes (`AhpErrorCode`), in the schema's order.
pub const AHP_ERROR_CODES: [i64; 10] = [
    SESSION_NOT_FOUND,
    PROVIDER_NOT_FOUND,
    SESSION_ALREADY_EXISTS,
    TURN_IN_PROGRESS,
    UNSUPPORTED_PROTOCOL_VERSION,
    CONTENT_NOT_FOUND,
    AUTH_REQUIRED,
    NOT_FOUND,
    PERMISSION_DENIED,
    ALREADY_EXISTS,
];

/// The symbolic name of an error code, for messages (`"SessionNotFound"`), if it is known.
pub fn error_code_name(code: i64) -> Option<&'static str> {
    Some(match code {
        PARSE_ERROR => "ParseError",
        INVALID_REQUEST => "InvalidRequest",
        METHOD_NOT_FOUND => "MethodNotFound",
        INVALID_PARAMS => "InvalidParams",
        INTERNAL_ERROR => "InternalError",
        SESSION_NOT_FOUND => "SessionNotFound",
        PROVIDER_NOT_FOUND => "ProviderNotFound",
        SESSION_ALREADY_EXISTS => "SessionAlreadyExists",
        TURN_IN_PROGRESS => "TurnInProgress",
        UNSUPPORTED_PROTOCOL_VERSION => "UnsupportedProtocolVersion",
        CONTENT_NOT_FOUND => "ContentNotFound",
        AUTH_REQUIRED => "AuthRequired",
        NOT_FOUND => "NotFound",
        PERMISSION_DENIED => "PermissionDenied",
        ALREADY_EXISTS => "AlreadyExists",
        _ => return None,
    })
}
