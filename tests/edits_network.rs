//! The `edits_over_network` example as a test: a host world sends its edits to a client world
//! over a loopback socket, and both end up showing the same terrain nodes, bit for bit.

#[expect(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/edits_over_network.rs"]
mod example;

#[test]
fn a_client_fed_over_loopback_shows_the_hosts_terrain() {
    example::run().expect("host and client agree");
}
