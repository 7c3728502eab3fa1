//! `/annotate` and `/canvas`: the agent asks the hub to add an annotation to its session's
//! annotations channel or to open a canvas (`hub/annotations.rs`, `hub/canvases.rs`), and
//! tells the user what came of it. Neither is a tool call: nothing runs and nothing is
//! written, so they work in `ask` mode too.

use super::{Step, Stopped, Turn};
use crate::bus::{HubMsg, PanelAsk, PanelRequest};
use crate::resources::{file_uri, Sandbox};
use tokio::sync::oneshot;

/// Bytes of an HTML file `/canvas --file` serves.
const MAX_PAGE_BYTES: u64 = 1024 * 1024;

impl Turn {
    pub(super) async fn annotate(&mut self, path: String, line: u32, text: String) -> Step {
        let resource = match Sandbox::new(&self.job.workdir, 0)
            .map_err(|e| e.to_string())
            .and_then(|s| s.existing_relative(&path).map_err(|e| e.message))
        {
            Ok(file) if file.is_file() => file_uri(&file),
            Ok(_) => {
                return self
                    .panel_refused("annotate", &format!("`{path}` is not a file"))
                    .await
            }
            Err(why) => {
                return self
                    .panel_refused("annotate", &format!("`{path}`: {why}"))
                    .await
            }
        };
        let ask = PanelAsk::Annotate {
            resource,
            line: line - 1,
            text,
        };
        self.panel("annotate", ask).await
    }

    pub(super) async fn canvas(&mut self, title: String, file: Option<String>) -> Step {
        let (html, kind) = match file {
            None => (
                crate::canvas_pages::template(&title, &self.job.channel),
                "template",
            ),
            Some(path) => match read_page(&self.job.workdir, &path).await {
                Ok(html) => (html, "file"),
                Err(why) => {
                    return self
                        .panel_refused("canvas", &format!("`{path}`: {why}"))
                        .await
                }
            },
        };
        self.panel("canvas", PanelAsk::Canvas { title, html, kind })
            .await
    }

    async fn panel(&mut self, what: &str, ask: PanelAsk) -> Step {
        let (reply, answer) = oneshot::channel();
        let request = PanelRequest {
            session: self.job.channel.clone(),
            turn_id: self.job.turn_id.clone(),
            ask,
            reply,
        };
        self.hub
            .send(HubMsg::Panel(Box::new(request)))
            .await
            .map_err(|_| Stopped)?;
        match answer.await {
            Ok(Ok(said)) => self.say(&format!("\n\n{said}\n\n")).await,
            Ok(Err(why)) => self.panel_refused(what, &why).await,
            Err(_) => Err(Stopped),
        }
    }

    async fn panel_refused(&mut self, what: &str, why: &str) -> Step {
        self.say(&format!("\n\n`/{what}` did nothing: {why}.\n\n"))
            .await
    }
}

/// An HTML file of the working directory, at most [`MAX_PAGE_BYTES`].
async fn read_page(workdir: &std::path::Path, path: &str) -> Result<String, String> {
    let file = Sandbox::new(workdir, MAX_PAGE_BYTES)
        .map_err(|e| e.to_string())?
        .existing_relative(path)
        .map_err(|e| e.message)?;
    let meta = tokio::fs::metadata(&file)
        .await
        .map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a file".into());
    }
    if meta.len() > MAX_PAGE_BYTES {
        return Err(format!("more than {MAX_PAGE_BYTES} bytes"));
    }
    let bytes = tokio::fs::read(&file).await.map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".into())
}
