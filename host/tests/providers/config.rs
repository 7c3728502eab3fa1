//! Provider configuration: flags grouped by `--provider`, JSON files, validation errors.

use ahp_host::providers::{
    KeyHeader, KeySource, Provider, ProviderArgs, ProviderConfig, ProviderKind, ProviderSpec,
    SetupError,
};
use clap::{CommandFactory, FromArgMatches};
use std::path::PathBuf;
use std::time::Duration;

/// Parsed as the host's own flags, which flatten the provider flags in (no clash: clap checks
/// its command when it is built).
fn parse(args: &[&str]) -> Result<Vec<ProviderConfig>, String> {
    let command = ahp_host::Cli::command();
    let matches = command
        .try_get_matches_from(std::iter::once("ahp-host").chain(args.iter().copied()))
        .map_err(|e| e.to_string())?;
    ProviderArgs::from_arg_matches(&matches).map_err(|e| e.to_string())?;
    ProviderArgs::configs(&matches).map_err(|e| e.to_string())
}

#[test]
fn flags_after_each_provider_configure_it() {
    let configs = parse(&[
        "--provider",
        "openai",
        "--base-url",
        "http://127.0.0.1:11434/v1",
        "--model",
        "llama3.2",
        "--model",
        "qwen3",
        "--provider-name",
        "ollama",
        "--provider",
        "anthropic",
        "--api-key-env",
        "ANTHROPIC_API_KEY",
        "--max-tokens",
        "8192",
        "--context-window",
        "200000",
        "--model",
        "claude-sonnet-4-5",
    ])
    .unwrap();
    assert_eq!(configs.len(), 2);
    let (ollama, claude) = (&configs[0], &configs[1]);
    assert_eq!(ollama.name, "ollama");
    assert_eq!(ollama.kind, ProviderKind::OpenAi);
    assert_eq!(ollama.base_url.as_str(), "http://127.0.0.1:11434/v1");
    assert_eq!(ollama.models, ["llama3.2", "qwen3"]);
    assert_eq!(ollama.key, KeySource::None);
    assert_eq!(ollama.key_header, KeyHeader::Bearer);
    assert_eq!(claude.name, "anthropic");
    assert_eq!(claude.base_url.as_str(), "https://api.anthropic.com/");
    assert_eq!(claude.key, KeySource::Env("ANTHROPIC_API_KEY".into()));
    assert_eq!(claude.key_variable(), Some("ANTHROPIC_API_KEY"));
    assert_eq!(ollama.key_variable(), None);
    assert_eq!(claude.models, ["claude-sonnet-4-5"]);
    assert_eq!(claude.max_tokens, 8192);
    assert_eq!(claude.context_window, Some(200_000));
    assert_eq!(ollama.context_window, None, "unknown unless given");
    assert_eq!(claude.timeouts.idle, Duration::from_secs(60));
    assert_eq!(claude.retry.max_attempts, 3);
    assert!(parse(&[]).unwrap().is_empty());
}

#[test]
fn flag_mistakes_are_named() {
    let cases: &[(&[&str], &str)] = &[
        (&["--model", "m"], "--model must follow a --provider"),
        (&["--provider", "gemini"], "unknown provider kind `gemini`"),
        (
            &["--provider", "openai", "--base-url", "a", "--base-url", "b"],
            "--base-url given twice",
        ),
        (
            &["--provider", "openai", "--provider", "openai"],
            "two providers have this name",
        ),
        (
            &["--provider", "openai", "--base-url", "ftp://x"],
            "is not http or https",
        ),
        (
            &["--provider", "openai", "--base-url", "http://u:p@x/v1"],
            "must not hold credentials",
        ),
        (
            &[
                "--provider",
                "openai",
                "--base-url",
                "http://192.0.2.1/v1",
                "--api-key-env",
                "K",
            ],
            "refusing to send an API key over plain http to 192.0.2.1",
        ),
        (
            &[
                "--provider",
                "openai",
                "--api-key-env",
                "K",
                "--api-key-file",
                "f",
            ],
            "not both",
        ),
        (
            &["--provider", "openai", "--max-tokens", "lots"],
            "--max-tokens `lots` is not a whole number",
        ),
        (
            &["--provider", "openai", "--context-window", "8k"],
            "--context-window `8k` is not a whole number",
        ),
        (
            &["--provider", "openai", "--model", "m", "--model", "m"],
            "model `m` is listed twice",
        ),
        (
            &["--provider", "openai", "--provider-name", "a b"],
            "name `a b` must be",
        ),
    ];
    for (args, expected) in cases {
        let error = parse(args).unwrap_err();
        assert!(
            error.contains(expected),
            "{args:?}: `{error}` lacks `{expected}`"
        );
        assert!(error.starts_with("model provider "), "{error}");
    }
    // Loopback over http may carry a key (a local server behind a proxy).
    let local = parse(&[
        "--provider",
        "openai",
        "--base-url",
        "http://localhost:8080/v1",
        "--api-key-env",
        "K",
    ]);
    assert!(local.is_ok(), "{local:?}");
}

#[test]
fn a_config_file_declares_several_providers_beside_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("providers.json");
    std::fs::write(
        &file,
        r#"{"providers": [
            {"kind": "openai", "name": "azure",
             "baseUrl": "https://example.openai.azure.com/openai/deployments/gpt?api-version=2024-10-21",
             "apiKeyFile": "azure.key", "keyHeader": "api-key", "models": ["gpt-4o"],
             "connectTimeoutMs": 2000, "firstByteTimeoutMs": 30000, "idleTimeoutMs": 15000,
             "maxAttempts": 5, "maxRetryWaitMs": 10000},
            {"kind": "anthropic", "anthropicVersion": "2023-06-01", "maxTokens": 1024}
        ]}"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let configs = parse(&[
        "--provider-config",
        path,
        "--provider",
        "openai",
        "--provider-name",
        "llama",
        "--base-url",
        "http://127.0.0.1:8080/v1",
    ])
    .unwrap();
    let names: Vec<&str> = configs.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["azure", "anthropic", "llama"]);
    let azure = &configs[0];
    assert_eq!(azure.key, KeySource::File(dir.path().join("azure.key")));
    assert_eq!(azure.key_header, KeyHeader::ApiKey);
    assert_eq!(azure.timeouts.connect, Duration::from_secs(2));
    assert_eq!(azure.timeouts.first_byte, Duration::from_secs(30));
    assert_eq!(azure.timeouts.idle, Duration::from_secs(15));
    assert_eq!(azure.retry.max_attempts, 5);
    assert_eq!(azure.retry.max_wait, Duration::from_secs(10));
    assert_eq!(
        azure.endpoint(&["chat", "completions"]).as_str(),
        "https://example.openai.azure.com/openai/deployments/gpt/chat/completions?api-version=2024-10-21"
    );
    assert_eq!(configs[1].max_tokens, 1024);

    // The key file is read when the provider is set up; a missing one is a clear error.
    let error = Provider::new(azure.clone()).unwrap_err();
    assert!(matches!(error, SetupError::Key { .. }));
    assert!(error.to_string().contains("azure.key"), "{error}");
    std::fs::write(dir.path().join("azure.key"), "sk-azure-secret\n").unwrap();
    let provider = Provider::new(azure.clone()).unwrap();
    assert!(provider.has_key());
    assert!(!format!("{provider:?}").contains("sk-azure-secret"));
}

#[test]
fn config_file_mistakes_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let write = |text: &str| {
        let file = dir.path().join("p.json");
        std::fs::write(&file, text).unwrap();
        file
    };
    let cases = [
        (
            r#"{"providers": [{"kind": "openai", "baseURL": "x"}]}"#,
            "unknown field `baseURL`",
        ),
        (r#"{"providers": [{"name": "x"}]}"#, "`kind` is missing"),
        (
            r#"{"providers": [{"kind": "anthropic", "keyHeader": "api-key"}]}"#,
            "openai providers only",
        ),
        (
            r#"{"providers": [{"kind": "openai", "anthropicVersion": "x"}]}"#,
            "anthropic providers only",
        ),
        (
            r#"{"providers": [{"kind": "openai", "maxAttempts": 0}]}"#,
            "maxAttempts 0",
        ),
        (
            r#"{"providers": [{"kind": "openai", "idleTimeoutMs": 0}]}"#,
            "idleTimeoutMs 0",
        ),
        (
            r#"{"providers": [{"kind": "openai", "contextWindow": 10}]}"#,
            "contextWindow 10 is not in 256..=100000000 tokens",
        ),
        (
            r#"{"providers": [{"kind": "openai", "contextWindow": "8k"}]}"#,
            "invalid type",
        ),
        (r#"{"providers": "#, "invalid JSON"),
    ];
    for (text, expected) in cases {
        let file = write(text);
        let error = ProviderSpec::from_file(&file)
            .and_then(ProviderConfig::validate_all)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains(expected),
            "{text}: `{error}` lacks `{expected}`"
        );
    }
    let missing = ProviderSpec::from_file(&PathBuf::from("/nonexistent/providers.json"));
    assert!(missing.is_err());
}

#[test]
fn a_key_from_the_client_is_its_own_source_and_excludes_the_others() {
    let configs = parse(&[
        "--provider",
        "anthropic",
        "--api-key-from-client",
        "--model",
        "claude-sonnet-4-5",
        "--provider",
        "openai",
        "--base-url",
        "http://127.0.0.1:8080/v1",
    ])
    .unwrap();
    assert_eq!(configs[0].key, KeySource::Client);
    assert_eq!(configs[0].models, ["claude-sonnet-4-5"]);
    assert_eq!(
        configs[1].key,
        KeySource::None,
        "the flag is the first provider's only"
    );
    let both = parse(&[
        "--provider",
        "openai",
        "--api-key-from-client",
        "--api-key-env",
        "OPENAI_API_KEY",
    ])
    .unwrap_err();
    assert!(both.contains("excludes a key variable or file"), "{both}");
    let plain = parse(&[
        "--provider",
        "openai",
        "--base-url",
        "http://example.com/v1",
        "--api-key-from-client",
    ])
    .unwrap_err();
    assert!(plain.contains("plain http"), "{plain}");
    let spec: ProviderSpec =
        serde_json::from_str(r#"{"kind": "openai", "apiKeyFromClient": true}"#).unwrap();
    assert_eq!(spec.validate(1).unwrap().key, KeySource::Client);
}
