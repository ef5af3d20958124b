// block 1 has no uncles
>> {"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockNumberAndIndex","params":["0x1","0x0"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
