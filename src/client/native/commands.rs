//! One typed async method per AHP 0.3.0 command.

use super::client::AhpClient;
use crate::client::Error;
use crate::protocol::jsonrpc::{self as rpc, EmptyResult, ROOT_CHANNEL};
use crate::protocol::*;

macro_rules! commands {
    ($($(#[$doc:meta])* $name:ident => $command:ident;)*) => {
        impl AhpClient {
            $(
                $(#[$doc])*
                pub async fn $name(
                    &self,
                    params: <rpc::$command as rpc::Command>::Params,
                ) -> Result<<rpc::$command as rpc::Command>::Result, Error> {
                    self.request::<rpc::$command>(params).await
                }
            )*
        }
    };
}

commands! {
    /// `createSession`: create a session at a client-chosen URI.
    create_session => CreateSession;
    /// `disposeSession`.
    dispose_session => DisposeSession;
    /// `listSessions`: session summaries.
    list_sessions => ListSessions;
    /// `fetchTurns`: page through a session's completed turns.
    fetch_turns => FetchTurns;
    /// `resourceRead`.
    resource_read => ResourceRead;
    /// `resourceWrite`.
    resource_write => ResourceWrite;
    /// `resourceList`: list a directory.
    resource_list => ResourceList;
    /// `resourceCopy`.
    resource_copy => ResourceCopy;
    /// `resourceDelete`.
    resource_delete => ResourceDelete;
    /// `resourceMove`.
    resource_move => ResourceMove;
    /// `resourceResolve`: stat + realpath.
    resource_resolve => ResourceResolve;
    /// `resourceMkdir`: mkdir -p.
    resource_mkdir => ResourceMkdir;
    /// `resourceRequest`: ask the host for access to resources.
    resource_request => ResourceRequest;
    /// `createResourceWatch`: returns the watch's channel (subscribe to it).
    create_resource_watch => CreateResourceWatch;
    /// `authenticate`: push a bearer token for a protected resource.
    authenticate => Authenticate;
    /// `completions`: input completions.
    completions => Completions;
    /// `resolveSessionConfig`.
    resolve_session_config => ResolveSessionConfig;
    /// `sessionConfigCompletions`.
    session_config_completions => SessionConfigCompletions;
    /// `createTerminal`.
    create_terminal => CreateTerminal;
    /// `disposeTerminal`.
    dispose_terminal => DisposeTerminal;
    /// `invokeChangesetOperation`.
    invoke_changeset_operation => InvokeChangesetOperation;
}

impl AhpClient {
    /// `ping`: the response is the liveness signal.
    pub async fn ping(&self) -> Result<(), Error> {
        let params = PingParams {
            channel: ROOT_CHANNEL.to_string(),
        };
        self.request::<rpc::Ping>(params)
            .await
            .map(|EmptyResult| ())
    }
}
