// the head is a proof-of-stake block: no uncles
>> {"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockNumberAndIndex","params":["latest","0x0"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
