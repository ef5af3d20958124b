// the genesis block has no uncles
>> {"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockNumberAndIndex","params":["earliest","0x0"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
