// the devnet seals what is pending
// speconly
>> {"jsonrpc":"2.0","id":9,"method":"devnet_createBlock","params":[]}
<< {"jsonrpc":"2.0","id":9,"result":{"block_hash":"0x1b3f0fc8a829971fa3ecc76002cb7e328b4fe8a56093b4b33b4f0f66c0d0581"}}
