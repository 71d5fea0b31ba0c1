//! A blocking interface for applications without async: the same stack on
//! a private Tokio runtime, each call waiting for its answer.

use std::net::IpAddr;
use std::sync::Arc;

use bytes::Bytes;
use tokio::runtime::Runtime;

use crate::config::StackConfig;
use crate::driver::NetEvent;
use crate::error::NetError;
use crate::stack;
use crate::status::AssocStatus;
use msctp_proto::Message;

/// A stack with its own runtime (two worker threads).
#[derive(Debug, Clone)]
pub struct Stack {
    rt: Arc<Runtime>,
    inner: stack::Stack,
}

impl Stack {
    pub fn bind(cfg: StackConfig) -> Result<Stack, NetError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let inner = rt.block_on(stack::Stack::bind(cfg))?;
        Ok(Stack {
            rt: Arc::new(rt),
            inner,
        })
    }

    pub fn udp_port(&self) -> u16 {
        self.inner.udp_port()
    }

    pub fn connect(&self, peers: &[IpAddr], port: u16) -> Result<Association, NetError> {
        let a = self.rt.block_on(self.inner.connect(peers, port))?;
        Ok(Association {
            rt: self.rt.clone(),
            inner: a,
        })
    }

    pub fn connect_via(
        &self,
        peers: &[IpAddr],
        port: u16,
        udp_port: Option<u16>,
    ) -> Result<Association, NetError> {
        let a = self
            .rt
            .block_on(self.inner.connect_via(peers, port, udp_port))?;
        Ok(Association {
            rt: self.rt.clone(),
            inner: a,
        })
    }

    pub fn accept(&self) -> Result<Association, NetError> {
        let a = self.rt.block_on(self.inner.accept())?;
        Ok(Association {
            rt: self.rt.clone(),
            inner: a,
        })
    }

    pub fn add_local_address(&self, addr: IpAddr) -> Result<(), NetError> {
        self.rt.block_on(self.inner.add_local_address(addr))
    }

    pub fn remove_local_address(&self, addr: IpAddr) -> Result<(), NetError> {
        self.rt.block_on(self.inner.remove_local_address(addr))
    }
}

/// An association, blocking.
#[derive(Debug)]
pub struct Association {
    rt: Arc<Runtime>,
    inner: stack::Association,
}

impl Association {
    pub fn send(&self, stream: u16, ppid: u32, data: Bytes) -> Result<(), NetError> {
        self.rt.block_on(self.inner.send(stream, ppid, data))
    }

    pub fn recv(&mut self) -> Result<Option<Message>, NetError> {
        self.rt.block_on(self.inner.recv())
    }

    pub fn try_event(&mut self) -> Option<NetEvent> {
        self.inner.try_event()
    }

    pub fn status(&self) -> Result<AssocStatus, NetError> {
        self.rt.block_on(self.inner.status())
    }

    pub fn set_primary(&self, peer: IpAddr) -> Result<(), NetError> {
        self.rt.block_on(self.inner.set_primary(peer))
    }

    pub fn request_peer_primary(&self, local: IpAddr) -> Result<(), NetError> {
        self.rt.block_on(self.inner.request_peer_primary(local))
    }

    pub fn add_local_address(&self, local: IpAddr) -> Result<(), NetError> {
        self.rt.block_on(self.inner.add_local_address(local))
    }

    pub fn remove_local_address(&self, local: IpAddr) -> Result<(), NetError> {
        self.rt.block_on(self.inner.remove_local_address(local))
    }

    pub fn shutdown(&self) -> Result<(), NetError> {
        self.rt.block_on(self.inner.shutdown())
    }

    pub fn abort(&self) -> Result<(), NetError> {
        self.rt.block_on(self.inner.abort())
    }
}
