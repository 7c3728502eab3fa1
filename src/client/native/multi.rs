//! [`MultiHostClient`]: several hosts, each with its own connection and reconnection, and one
//! merged event stream.

use super::client::AhpClient;
use super::events::ClientEvent;
use super::ConnectOptions;
use crate::client::Error;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::broadcast;

struct Host {
    client: AhpClient,
    forwarder: tokio::task::JoinHandle<()>,
}

/// Clients of several hosts by name; events of all of them, tagged with the host name.
#[derive(Clone)]
pub struct MultiHostClient {
    hosts: Arc<Mutex<BTreeMap<String, Host>>>,
    events: broadcast::Sender<(String, ClientEvent)>,
}

impl Default for MultiHostClient {
    fn default() -> Self {
        MultiHostClient {
            hosts: Arc::default(),
            events: broadcast::channel(1024).0,
        }
    }
}

impl MultiHostClient {
    /// No hosts yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn hosts(&self) -> MutexGuard<'_, BTreeMap<String, Host>> {
        self.hosts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Connects to a host and adds it under `name` (replacing, and closing, any host of that
    /// name).
    pub async fn add_host(
        &self,
        name: &str,
        url: &str,
        options: ConnectOptions,
    ) -> Result<AhpClient, Error> {
        let client = AhpClient::connect(url, options).await?;
        self.add_client(name, client.clone());
        Ok(client)
    }

    /// Adds an already connected client under `name`.
    pub fn add_client(&self, name: &str, client: AhpClient) {
        let mut events = client.events();
        let tx = self.events.clone();
        let tag = name.to_string();
        let forwarder = tokio::spawn(async move {
            loop {
                match events.recv().await {
                    Ok(event) => {
                        let _ = tx.send((tag.clone(), event));
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        let old = self
            .hosts()
            .insert(name.to_string(), Host { client, forwarder });
        if let Some(old) = old {
            old.forwarder.abort();
            old.client.close();
        }
    }

    /// The client of a host.
    pub fn host(&self, name: &str) -> Option<AhpClient> {
        self.hosts().get(name).map(|h| h.client.clone())
    }

    /// Host names, sorted.
    pub fn host_names(&self) -> Vec<String> {
        self.hosts().keys().cloned().collect()
    }

    /// Removes a host and closes its client.
    pub fn remove_host(&self, name: &str) -> bool {
        let removed = self.hosts().remove(name);
        match removed {
            Some(host) => {
                host.forwarder.abort();
                host.client.close();
                true
            }
            None => false,
        }
    }

    /// Events of every host, tagged with the host name, from now on.
    pub fn events(&self) -> broadcast::Receiver<(String, ClientEvent)> {
        self.events.subscribe()
    }

    /// Closes every host.
    pub fn close(&self) {
        let hosts = std::mem::take(&mut *self.hosts());
        for (_, host) in hosts {
            host.forwarder.abort();
            host.client.close();
        }
    }
}
