import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// `midiccio serve --lan`: a phone on the home network opens the server by this
/// computer's address or name; every other name is still refused.
@Suite("Serving the home network")
final class HomeNetworkTests {
    static let token = "home-network-token-1234"
    let web: WebFixture

    // Bound to loopback all the same: the Host check does not depend on the socket, and a
    // test listens on no other interface.
    init() throws { web = try WebFixture(accessToken: Self.token, hostNames: MachineNames.all()) }

    func get(host: String) throws -> Int {
        try web.send(
            "GET", "/api/words", host: "\(host):\(web.server.port)", headers: ["Authorization": "Bearer \(Self.token)"]
        ).status
    }

    @Test("every address of this computer's interfaces is accepted as Host")
    func interfaceAddressesAreAccepted() throws {
        let addresses = MachineNames.interfaceAddresses()
        #expect(addresses.contains("127.0.0.1"))
        for address in addresses { #expect(try get(host: address) == 200, "Host: \(address)") }
    }

    @Test("this computer's LAN address (the one printed for pairing) is accepted")
    func pairingAddressIsAccepted() throws {
        #expect(try get(host: MachineNames.pairingHost()) == 200)
    }

    @Test("the host name and HOSTNAME.local are accepted")
    func hostNamesAreAccepted() throws {
        let name = try #require(MachineNames.hostName.split(separator: ".").first.map(String.init))
        #expect(try get(host: name) == 200)
        #expect(try get(host: name + ".local") == 200)
        #expect(try get(host: name.uppercased() + ".LOCAL") == 200)
    }

    @Test(
        "any other name is refused, so a rebound DNS name cannot reach the library",
        arguments: ["evil.example", "0.0.0.0", "192.0.2.250", "vm.local.evil.example", "local"])
    func otherNamesAreRefused(name: String) throws {
        #expect(try get(host: name) == 421)
    }

    @Test("without the token, the LAN address gets 401")
    func tokenIsRequired() throws {
        #expect(try web.send("GET", "/api/words", host: "\(MachineNames.pairingHost()):\(web.server.port)").status == 401)
    }
}
