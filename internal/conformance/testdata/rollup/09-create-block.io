// the devnet seals what is pending
// speconly
>> {"jsonrpc":"2.0","id":9,"method":"devnet_createBlock","params":[]}
<< {"jsonrpc":"2.0","id":9,"result":{"block_hash":"0x637bf82e9bd17c0b544a2f5df9c84b665374ebb581d9510bb59c7362acb9ea7"}}
