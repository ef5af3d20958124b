// a nonce that is not the account's next is refused; nothing stored
>> {"jsonrpc":"2.0","id":23,"method":"starknet_addInvokeTransaction","params":[{"type":"INVOKE","version":"0x1","max_fee":"0x1","nonce":"0x5","signature":[],"sender_address":"0x4f1cb86e5067045d8264cc542da0517b9afcc4219575a184a76265423e8a213","calldata":[]}]}
<< {"jsonrpc":"2.0","id":23,"error":{"code":52,"message":"Invalid transaction nonce","data":"account 0x4f1cb86e5067045d8264cc542da0517b9afcc4219575a184a76265423e8a213: nonce 0x5 is not the account's next nonce 0x2"}}
