// felts are validated, never reduced; nothing is stored
>> {"jsonrpc":"2.0","id":7,"method":"starknet_addInvokeTransaction","params":[{"type":"INVOKE","version":"0x1","max_fee":"0x1","signature":[],"nonce":"0x0","sender_address":"0x800000000000011000000000000000000000000000000000000000000000001","calldata":[]}]}
<< {"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"invalid argument 0: invoke_transaction.sender_address: felt is not below the field prime 2^251+17*2^192+1: 0x800000000000011000000000000000000000000000000000000000000000001"}}
